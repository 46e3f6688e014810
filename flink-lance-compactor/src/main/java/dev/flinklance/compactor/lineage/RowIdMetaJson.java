package dev.flinklance.compactor.lineage;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
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
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String INLINE = "Inline";
  private static final String EXTERNAL = "External";

  /** Where a spilled sequence lives. */
  public record ExternalSlice(String path, long offset, long size) {}

  private RowIdMetaJson() {}

  /** The serialized sequence of an inline row-id meta; empty if it is not inline. */
  public static Optional<byte[]> inlineBytes(RowIdMeta meta) {
    if (meta == null) {
      return Optional.empty();
    }
    String json = meta.getMetadata();
    // Streamed: an inline sequence can be hundreds of kilobytes of numbers
    try (JsonParser parser = JSON.getFactory().createParser(json)) {
      if (parser.nextToken() != JsonToken.START_OBJECT
          || parser.nextToken() != JsonToken.FIELD_NAME
          || !parser.currentName().equals(INLINE)) {
        return Optional.empty();
      }
      if (parser.nextToken() != JsonToken.START_ARRAY) {
        throw unexpected(json);
      }
      ByteArrayOutputStream bytes = new ByteArrayOutputStream(json.length() / 3);
      for (JsonToken token = parser.nextToken();
          token != JsonToken.END_ARRAY;
          token = parser.nextToken()) {
        int value = token == JsonToken.VALUE_NUMBER_INT ? parser.getIntValue() : -1;
        if (value < 0 || value > 255) {
          throw unexpected(json);
        }
        bytes.write(value);
      }
      return Optional.of(bytes.toByteArray());
    } catch (IOException e) {
      throw new IllegalArgumentException("Unreadable row-id metadata: " + abbreviate(json), e);
    }
  }

  /** Size in bytes of the serialized sequence of an inline meta, 0 for an external one. */
  public static int inlineSize(RowIdMeta meta) {
    return inlineBytes(meta).map(b -> b.length).orElse(0);
  }

  public static RowIdMeta external(String path, long offset, long size) {
    if (path.contains("/") || path.contains("\\")) {
      // Lance resolves the path as ONE segment under the table's root; a slash is escaped.
      throw new IllegalArgumentException("Side-file name must be one path segment: " + path);
    }
    ObjectNode root = JSON.createObjectNode();
    root.putObject(EXTERNAL).put("path", path).put("offset", offset).put("size", size);
    try {
      return new RowIdMeta(JSON.writeValueAsString(root));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e); // a tree of strings and numbers always serializes
    }
  }

  /** The slice an external meta points to; empty if it is inline. */
  public static Optional<ExternalSlice> externalSlice(RowIdMeta meta) {
    if (meta == null || meta.getMetadata().contains("\"" + INLINE + "\"")) {
      return Optional.empty();
    }
    String json = meta.getMetadata();
    JsonNode external;
    try {
      external = JSON.readTree(json).path(EXTERNAL);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("Unreadable row-id metadata: " + abbreviate(json), e);
    }
    if (external.isMissingNode()) {
      return Optional.empty();
    }
    if (!external.path("path").isTextual()
        || !external.path("offset").canConvertToLong()
        || !external.path("size").canConvertToLong()) {
      throw unexpected(json);
    }
    return Optional.of(
        new ExternalSlice(
            external.get("path").asText(),
            external.get("offset").asLong(),
            external.get("size").asLong()));
  }

  private static IllegalArgumentException unexpected(String json) {
    return new IllegalArgumentException("Unexpected row-id metadata: " + abbreviate(json));
  }

  private static String abbreviate(String json) {
    return json.length() <= 80 ? json : json.substring(0, 80) + "...";
  }
}
