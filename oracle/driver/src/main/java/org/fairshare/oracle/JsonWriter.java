package org.fairshare.oracle;

import java.math.BigDecimal;
import java.util.List;
import java.util.Map;

/**
 * Compact JSON text as fairshare writes it (Python's json.dumps with separators (",", ":") and
 * ensure_ascii=False): keys in insertion order, floats in Python's notation, non-finite as null.
 */
final class JsonWriter {
  private JsonWriter() {}

  static String write(Object value) {
    StringBuilder out = new StringBuilder();
    append(out, value);
    return out.toString();
  }

  static void append(StringBuilder out, Object value) {
    if (value == null) {
      out.append("null");
    } else if (value instanceof String) {
      string(out, (String) value);
    } else if (value instanceof Boolean || value instanceof Long || value instanceof Integer) {
      out.append(value);
    } else if (value instanceof Float) {
      out.append(float32((Float) value));
    } else if (value instanceof Map) {
      object(out, (Map<?, ?>) value);
    } else if (value instanceof List) {
      array(out, (List<?>) value);
    } else {
      throw new IllegalArgumentException("not JSON: " + value.getClass());
    }
  }

  private static void object(StringBuilder out, Map<?, ?> map) {
    out.append('{');
    boolean first = true;
    for (Map.Entry<?, ?> e : map.entrySet()) {
      if (!first) {
        out.append(',');
      }
      first = false;
      string(out, (String) e.getKey());
      out.append(':');
      append(out, e.getValue());
    }
    out.append('}');
  }

  private static void array(StringBuilder out, List<?> list) {
    out.append('[');
    for (int i = 0; i < list.size(); i++) {
      if (i > 0) {
        out.append(',');
      }
      append(out, list.get(i));
    }
    out.append(']');
  }

  private static void string(StringBuilder out, String s) {
    out.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"': out.append("\\\""); break;
        case '\\': out.append("\\\\"); break;
        case '\n': out.append("\\n"); break;
        case '\r': out.append("\\r"); break;
        case '\t': out.append("\\t"); break;
        case '\b': out.append("\\b"); break;
        case '\f': out.append("\\f"); break;
        default:
          if (c < 0x20) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
      }
    }
    out.append('"');
  }

  /**
   * A Java float as fairshare's float32_decimal writes it: the shortest decimal that reads
   * back as the same float (Float.toString), in Python's repr notation (1.0, 0.1, 1e-05,
   * 1e+16); NaN and infinities are null, as fairshare's json_text writes them.
   */
  static String float32(float f) {
    if (Float.isNaN(f) || Float.isInfinite(f)) {
      return "null";
    }
    BigDecimal d = new BigDecimal(Float.toString(f));
    if (d.signum() == 0) {
      return (Float.floatToRawIntBits(f) < 0) ? "-0.0" : "0.0";
    }
    d = d.stripTrailingZeros();
    String digits = d.unscaledValue().abs().toString();
    int exponent = digits.length() - 1 - d.scale(); // of the first digit
    String sign = d.signum() < 0 ? "-" : "";
    if (exponent < -4 || exponent >= 16) {
      String mantissa = digits.length() == 1 ? digits
          : digits.charAt(0) + "." + digits.substring(1);
      String exp = String.format("%s%02d", exponent < 0 ? "-" : "+", Math.abs(exponent));
      return sign + mantissa + "e" + exp;
    }
    String plain = d.abs().toPlainString();
    return sign + (plain.contains(".") ? plain : plain + ".0");
  }
}
