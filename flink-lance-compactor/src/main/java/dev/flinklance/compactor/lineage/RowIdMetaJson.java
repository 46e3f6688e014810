package dev.flinklance.compactor.lineage;

import java.io.ByteArrayOutputStream;
import java.util.Optional;
import org.apache.flink.annotation.Internal;
import org.lance.fragment.RowIdMeta;

/**
 * Lance's JSON form of a fragment's row-id metadata (lance-core 7.0.0): {@code
 * {"Inline":[b0,b1,..]}} with the serialized row-id sequence as unsigned bytes, or {@code
 * {"External":{"path":..,"offset":..,"size":..}}} pointing at those bytes in a file at the table's
 * root.
 */
@Internal
public final class RowIdMetaJson {
  private static final String INLINE = "{\"Inline\":[";
  private static final String EXTERNAL = "{\"External\":";

  /** Where a spilled sequence lives. */
  public record ExternalSlice(String path, long offset, long size) {}

  private RowIdMetaJson() {}

  /** The serialized sequence of an inline row-id meta; empty if it is not inline. */
  public static Optional<byte[]> inlineBytes(RowIdMeta meta) {
    if (meta == null) {
      return Optional.empty();
    }
    String json = meta.getMetadata();
    if (!json.startsWith(INLINE)) {
      return Optional.empty();
    }
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(json.length() / 3);
    int value = -1;
    for (int i = INLINE.length(); i < json.length(); i++) {
      char c = json.charAt(i);
      if (c >= '0' && c <= '9') {
        value = (value < 0 ? 0 : value * 10) + (c - '0');
      } else if (c == ',' || c == ']') {
        if (value >= 0) {
          bytes.write(value);
        }
        value = -1;
        if (c == ']') {
          break;
        }
      } else if (c != ' ') {
        throw new IllegalArgumentException("Unexpected row-id metadata: " + abbreviate(json));
      }
    }
    return Optional.of(bytes.toByteArray());
  }

  /** Size in bytes of the serialized sequence of an inline meta, 0 for an external one. */
  public static int inlineSize(RowIdMeta meta) {
    return inlineBytes(meta).map(b -> b.length).orElse(0);
  }

  public static RowIdMeta external(String path, long offset, long size) {
    if (path.contains("/") || path.contains("\\") || path.contains("\"")) {
      // Lance resolves the path as ONE segment under the table's root; a slash is escaped.
      throw new IllegalArgumentException("Side-file name must be one path segment: " + path);
    }
    return new RowIdMeta(
        String.format(
            "{\"External\":{\"path\":\"%s\",\"offset\":%d,\"size\":%d}}", path, offset, size));
  }

  /** The slice an external meta points to; empty if it is inline. */
  public static Optional<ExternalSlice> externalSlice(RowIdMeta meta) {
    if (meta == null || !meta.getMetadata().startsWith(EXTERNAL)) {
      return Optional.empty();
    }
    String json = meta.getMetadata();
    return Optional.of(
        new ExternalSlice(
            stringField(json, "path"), longField(json, "offset"), longField(json, "size")));
  }

  private static String stringField(String json, String name) {
    int start = json.indexOf("\"" + name + "\":\"") + name.length() + 4;
    return json.substring(start, json.indexOf('"', start));
  }

  private static long longField(String json, String name) {
    int start = json.indexOf("\"" + name + "\":") + name.length() + 3;
    int end = start;
    while (end < json.length() && Character.isDigit(json.charAt(end))) {
      end++;
    }
    return Long.parseLong(json.substring(start, end));
  }

  private static String abbreviate(String json) {
    return json.length() <= 80 ? json : json.substring(0, 80) + "...";
  }
}
