package org.fairshare.oracle;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.security.GroupMappingServiceProvider;
import org.apache.hadoop.security.Groups;

/**
 * The scenario's "groups" as Hadoop's group mapping (hadoop.security.group.mapping): the
 * placement rules (PrimaryGroupPlacementRule, SecondaryGroupExistingPlacementRule) and queue
 * ACLs ask Groups, which asks this provider. Hadoop keeps one Groups service per JVM with a
 * cache; {@link #install} sets the scenario's table and empties the cache, so no scenario sees
 * another's groups.
 */
public final class ScenarioGroups implements GroupMappingServiceProvider {
  private static volatile Map<String, List<String>> table = Collections.emptyMap();

  static void configure(Configuration conf) {
    conf.set("hadoop.security.group.mapping", ScenarioGroups.class.getName());
  }

  static void install(Map<String, List<String>> groups, Configuration conf) {
    table = new TreeMap<>(groups);
    Groups.getUserToGroupsMappingService(conf).refresh();
  }

  @Override
  public List<String> getGroups(String user) {
    return new ArrayList<>(table.getOrDefault(user, Collections.emptyList()));
  }

  @Override
  public void cacheGroupsRefresh() {
    // the table is replaced whole by install()
  }

  @Override
  public void cacheGroupsAdd(List<String> groups) {
    // nothing to cache
  }

  @Override
  public Set<String> getGroupsSet(String user) {
    return new LinkedHashSet<>(getGroups(user));
  }
}
