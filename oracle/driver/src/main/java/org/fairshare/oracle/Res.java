package org.fairshare.oracle;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;

import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceInformation;
import org.apache.hadoop.yarn.util.resource.ResourceUtils;

/** Resources between the scenario's maps ({"memory-mb": …, "vcores": …, custom…}) and YARN's. */
final class Res {
  private Res() {}

  static Resource of(JsonNode map) {
    Resource r = Resource.newInstance(0L, 0);
    Iterator<Map.Entry<String, JsonNode>> fields = map.fields();
    while (fields.hasNext()) {
      Map.Entry<String, JsonNode> e = fields.next();
      r.setResourceValue(e.getKey(), e.getValue().asLong());
    }
    return r;
  }

  /** Every type the cluster knows, 0 included, in YARN's order (memory-mb, vcores, custom). */
  static Map<String, Object> map(Resource r) {
    Map<String, Object> out = new LinkedHashMap<>();
    for (ResourceInformation type : ResourceUtils.getResourceTypesArray()) {
      out.put(type.getName(), r == null ? 0L : r.getResourceValue(type.getName()));
    }
    return out;
  }
}
