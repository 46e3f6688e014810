package dev.flinklance.cdc;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.flinklance.sink.dynamic.DynamicRecord;
import java.io.IOException;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.flink.annotation.Internal;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.RowKind;

/**
 * Reads one Kafka message of Debezium's JSON converter (key and value) as a change of a Lance
 * primary-key table. The value is a change event with or without its Connect schema, told apart per
 * message: with {@code debezium-json.schema-include} it is {@code {"schema": ..., "payload":
 * {...}}}. The key holds the primary key columns (again with or without a schema); their names are
 * the Lance table's primary key.
 *
 * <ul>
 *   <li>{@code r} (snapshot read), {@code c}, {@code u}: upsert of {@code after} by key; {@code d}:
 *       delete of {@code before}'s key. Replays of the same event give the same change, which is
 *       idempotent by key.
 *   <li>a tombstone (null value) and a schema change event ({@code ddl}, {@code tableChanges}) give
 *       nothing: the columns follow from the data messages' schemas.
 *   <li>the table is the envelope's {@code source.table}, or the last part of the topic's name.
 * </ul>
 */
@Internal
final class DebeziumChanges implements Serializable {
  private static final long serialVersionUID = 1L;

  private final TableRouting routing;
  private transient ObjectMapper json;

  DebeziumChanges(TableRouting routing) {
    this.routing = routing;
  }

  /**
   * @param key the message's key, null if it has none
   * @param value the message's value, null for a tombstone
   * @return the change, or empty for a tombstone, a schema change event or a table left out
   * @throws InvalidMessageException saying what is wrong, and with which table if known
   */
  Optional<DynamicRecord> parse(String topic, byte[] key, byte[] value) {
    if (value == null) {
      return Optional.empty();
    }
    Envelope envelope = Envelope.of(read(value, "value"));
    JsonNode payload = envelope.payload;
    if (payload.isNull()) {
      return Optional.empty();
    }
    if (!payload.isObject()) {
      throw new InvalidMessageException("the value is not a Debezium change event (no object)");
    }
    String table = sourceTable(topic, payload);
    JsonNode op = payload.get("op");
    if (op == null) {
      if (payload.has("ddl") || payload.has("tableChanges")) {
        return Optional.empty();
      }
      throw new InvalidMessageException(
          "the value is not a Debezium change event (no 'op'), table '" + table + "'");
    }
    Optional<String> target = routing.target(table);
    if (target.isEmpty()) {
      return Optional.empty();
    }
    RowKind kind;
    String image;
    switch (op.asText()) {
      case "r":
      case "c":
        kind = RowKind.INSERT;
        image = "after";
        break;
      case "u":
        kind = RowKind.UPDATE_AFTER;
        image = "after";
        break;
      case "d":
        kind = RowKind.DELETE;
        image = "before";
        break;
      default:
        throw new InvalidMessageException(
            String.format(
                "table '%s': operation '%s' cannot be applied by key (r, c, u and d can)",
                table, op.asText()));
    }
    JsonNode row = payload.path(image);
    if (!row.isObject()) {
      throw new InvalidMessageException(
          String.format("table '%s': a '%s' event without '%s'", table, op.asText(), image));
    }
    List<String> primaryKey = primaryKey(table, key);
    try {
      return Optional.of(
          change(routing.database(), target.get(), envelope, image, row, primaryKey, kind));
    } catch (InvalidMessageException e) {
      throw new InvalidMessageException("table '" + table + "': " + e.getMessage(), e);
    }
  }

  private static DynamicRecord change(
      String database,
      String table,
      Envelope envelope,
      String image,
      JsonNode row,
      List<String> primaryKey,
      RowKind kind) {
    Map<String, ColumnType> columns = envelope.columns(image, row);
    for (String keyColumn : primaryKey) {
      if (!columns.containsKey(keyColumn)) {
        throw new InvalidMessageException(
            "the key column '" + keyColumn + "' is not a column of the row");
      }
    }
    List<RowType.RowField> fields = new ArrayList<>();
    GenericRowData values = new GenericRowData(kind, columns.size());
    int i = 0;
    for (Map.Entry<String, ColumnType> column : columns.entrySet()) {
      String name = column.getKey();
      Object value = column.getValue().read(row.get(name));
      boolean keyColumn = primaryKey.contains(name);
      if (keyColumn && value == null) {
        throw new InvalidMessageException("the key column '" + name + "' is null");
      }
      // only key columns are NOT NULL: a column the source drops later is written NULL
      fields.add(new RowType.RowField(name, column.getValue().type().copy(!keyColumn)));
      values.setField(i++, value);
    }
    return DynamicRecord.change(database, table, new RowType(fields), values, primaryKey);
  }

  private List<String> primaryKey(String table, byte[] key) {
    JsonNode columns = key == null ? null : Envelope.of(read(key, "key")).payload;
    List<String> names = new ArrayList<>();
    if (columns != null && columns.isObject()) {
      columns.fieldNames().forEachRemaining(names::add);
    }
    if (names.isEmpty()) {
      throw new InvalidMessageException(
          String.format(
              "table '%s' has no primary key (the message has no key columns): the sync keeps"
                  + " primary-key tables only; leave the table out with --exclude-tables",
              table));
    }
    return names;
  }

  /** {@code source.table} of the envelope, or the last dot-separated part of the topic. */
  private static String sourceTable(String topic, JsonNode payload) {
    JsonNode table = payload.path("source").path("table");
    if (table.isTextual() && !table.textValue().isEmpty()) {
      return table.textValue();
    }
    return topic.substring(topic.lastIndexOf('.') + 1);
  }

  private JsonNode read(byte[] bytes, String part) {
    if (json == null) {
      json = newMapper();
    }
    try {
      JsonNode node = json.readTree(bytes);
      return node == null ? json.nullNode() : node;
    } catch (JsonProcessingException e) {
      throw new InvalidMessageException(
          "the " + part + " is not JSON: " + e.getOriginalMessage(), e);
    } catch (IOException e) {
      throw new InvalidMessageException("the " + part + " is not readable JSON", e);
    }
  }

  /** Numbers keep their text ("12.50") where a message without schema makes them STRING. */
  static ObjectMapper newMapper() {
    return JsonMapper.builder()
        .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
        .disable(JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES)
        .build();
  }

  /** A message of Debezium's JSON converter: the payload, and the schema if it carries one. */
  private static final class Envelope {
    final JsonNode schema;
    final JsonNode payload;

    private Envelope(JsonNode schema, JsonNode payload) {
      this.schema = schema;
      this.payload = payload;
    }

    static Envelope of(JsonNode root) {
      if (root.isObject() && root.size() == 2 && root.has("schema") && root.has("payload")) {
        return new Envelope(root.get("schema"), root.get("payload"));
      }
      return new Envelope(null, root);
    }

    /** The row's columns in order: from the image's Connect schema, or all STRING without one. */
    Map<String, ColumnType> columns(String image, JsonNode row) {
      Map<String, ColumnType> columns = new LinkedHashMap<>();
      if (schema == null) {
        row.fieldNames().forEachRemaining(name -> columns.put(name, DebeziumTypes.schemaless()));
        return columns;
      }
      JsonNode struct = null;
      for (JsonNode field : schema.path("fields")) {
        if (image.equals(field.path("field").asText())) {
          struct = field;
        }
      }
      if (struct == null || !struct.path("fields").isArray()) {
        throw new InvalidMessageException("the message's schema does not describe '" + image + "'");
      }
      for (Iterator<JsonNode> it = struct.path("fields").elements(); it.hasNext(); ) {
        JsonNode field = it.next();
        String name = field.path("field").asText();
        columns.put(name, DebeziumTypes.of(field, name));
      }
      return columns;
    }
  }
}
