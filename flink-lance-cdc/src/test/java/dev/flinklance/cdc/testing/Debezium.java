package dev.flinklance.cdc.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Debezium MySQL connector messages as its JSON converter writes them (key and value, with {@code
 * schemas.enable} or without), for a table described by its Connect schema fields.
 */
public final class Debezium {
  public static final ObjectMapper JSON = new ObjectMapper();

  private Debezium() {}

  /** A column: its name and Connect field schema. */
  public record Column(String name, ObjectNode schema) {}

  public static Column column(String name, String type) {
    return column(name, type, null);
  }

  public static Column column(String name, String type, String logicalName) {
    ObjectNode schema = JSON.createObjectNode().put("type", type).put("optional", true);
    if (logicalName != null) {
      schema.put("name", logicalName);
    }
    return new Column(name, schema.put("field", name));
  }

  /** {@code DECIMAL(precision, scale)} as Debezium's {@code decimal.handling.mode = precise}. */
  public static Column decimal(String name, int precision, int scale) {
    Column column = column(name, "bytes", "org.apache.kafka.connect.data.Decimal");
    column
        .schema()
        .putObject("parameters")
        .put("scale", Integer.toString(scale))
        .put("connect.decimal.precision", Integer.toString(precision));
    return column;
  }

  /** A source table: database, name, columns, key columns. */
  public record Table(String db, String name, List<Column> columns, List<String> key) {
    public Table withColumn(Column column) {
      List<Column> wider = new ArrayList<>(columns);
      wider.add(column);
      return new Table(db, name, wider, key);
    }

    /** The message key: the key columns of {@code row}. */
    public String key(Map<String, ?> row, boolean withSchema) {
      ObjectNode payload = JSON.createObjectNode();
      ArrayNode fields = JSON.createArrayNode();
      for (String column : key) {
        payload.set(column, JSON.valueToTree(row.get(column)));
        ObjectNode field = schemaOf(column).deepCopy().put("optional", false);
        fields.add(field);
      }
      if (!withSchema) {
        return payload.toString();
      }
      ObjectNode schema = struct("Key", false);
      schema.set("fields", fields);
      return envelope(schema, payload);
    }

    /**
     * The message value of a change event.
     *
     * @param op r, c, u or d
     * @param before the row before (null for r and c)
     * @param after the row after (null for d)
     */
    public String value(
        String op, Map<String, ?> before, Map<String, ?> after, boolean withSchema) {
      ObjectNode payload = JSON.createObjectNode();
      payload.set("before", row(before));
      payload.set("after", row(after));
      ObjectNode source =
          payload
              .putObject("source")
              .put("version", "2.7.3.Final")
              .put("connector", "mysql")
              .put("name", "dbserver1")
              .put("ts_ms", 1_733_000_000_000L)
              .put("db", db)
              .put("table", name);
      source.put("snapshot", op.equals("r") ? "true" : "false");
      payload.put("op", op).put("ts_ms", 1_733_000_000_123L);
      payload.putNull("transaction");
      if (!withSchema) {
        return payload.toString();
      }
      ObjectNode value = struct("Value", true);
      ArrayNode valueFields = value.putArray("fields");
      columns.forEach(column -> valueFields.add(column.schema()));
      ObjectNode schema = struct("Envelope", false);
      ArrayNode fields = schema.putArray("fields");
      fields.add(value.deepCopy().put("field", "before"));
      fields.add(value.deepCopy().put("field", "after"));
      ObjectNode sourceSchema =
          fields
              .addObject()
              .put("type", "struct")
              .put("optional", false)
              .put("name", "io.debezium.connector.mysql.Source")
              .put("field", "source");
      ArrayNode sourceFields = sourceSchema.putArray("fields");
      for (String field : List.of("version", "connector", "name", "db", "table", "snapshot")) {
        sourceFields.addObject().put("type", "string").put("optional", true).put("field", field);
      }
      sourceFields.addObject().put("type", "int64").put("optional", false).put("field", "ts_ms");
      fields.addObject().put("type", "string").put("optional", false).put("field", "op");
      fields.addObject().put("type", "int64").put("optional", true).put("field", "ts_ms");
      fields
          .addObject()
          .put("type", "struct")
          .put("optional", true)
          .put("field", "transaction")
          .putArray("fields");
      return envelope(schema, payload);
    }

    /** The schema of one of the table's structs, named as Debezium names them. */
    private ObjectNode struct(String kind, boolean optional) {
      return JSON.createObjectNode()
          .put("type", "struct")
          .put("optional", optional)
          .put("name", "dbserver1." + db + "." + name + "." + kind);
    }

    private JsonNode row(Map<String, ?> row) {
      if (row == null) {
        return JSON.nullNode();
      }
      ObjectNode node = JSON.createObjectNode();
      for (Column column : columns) {
        if (row.containsKey(column.name())) {
          node.set(column.name(), JSON.valueToTree(row.get(column.name())));
        }
      }
      return node;
    }

    private ObjectNode schemaOf(String column) {
      return columns.stream()
          .filter(c -> c.name().equals(column))
          .findFirst()
          .orElseThrow()
          .schema();
    }
  }

  public static Table table(String db, String name, List<String> key, Column... columns) {
    return new Table(db, name, List.of(columns), key);
  }

  /** A row from alternating column names and values. */
  public static Map<String, Object> row(Object... namesAndValues) {
    Map<String, Object> row = new LinkedHashMap<>();
    for (int i = 0; i < namesAndValues.length; i += 2) {
      row.put((String) namesAndValues[i], namesAndValues[i + 1]);
    }
    return row;
  }

  private static String envelope(JsonNode schema, JsonNode payload) {
    ObjectNode envelope = JSON.createObjectNode();
    envelope.set("schema", schema);
    envelope.set("payload", payload);
    return envelope.toString();
  }
}
