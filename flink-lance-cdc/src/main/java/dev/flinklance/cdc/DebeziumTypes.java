package dev.flinklance.cdc;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.flink.annotation.Internal;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericMapData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.BooleanType;
import org.apache.flink.table.types.logical.DateType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.DoubleType;
import org.apache.flink.table.types.logical.FloatType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.MapType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.SmallIntType;
import org.apache.flink.table.types.logical.TimeType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.flink.table.types.logical.TinyIntType;
import org.apache.flink.table.types.logical.VarBinaryType;
import org.apache.flink.table.types.logical.VarCharType;

/**
 * Debezium's JSON values as Flink types: from the Kafka Connect schema a message carries ({@code
 * debezium-json.schema-include}), or, for a message without one, every column as STRING. The table
 * in docs/cdc.md lists the mapping; keep the two together.
 */
@Internal
final class DebeziumTypes {
  /** DECIMAL precision when the schema does not say ({@code connect.decimal.precision}). */
  static final int DEFAULT_DECIMAL_PRECISION = 38;

  /** Precision of {@code io.debezium.time.ZonedTimestamp}: the finest MySQL and Postgres keep. */
  static final int ZONED_TIMESTAMP_PRECISION = 6;

  private DebeziumTypes() {}

  /**
   * A column of a message without a schema: STRING, whatever the JSON value is, so that a table's
   * column type never depends on which value came first (a number, a null, a string). Scalars keep
   * their JSON text ({@code 12.50}, {@code true}), objects and arrays their compact JSON.
   */
  static ColumnType schemaless() {
    return new ColumnType(
        VarCharType.STRING_TYPE,
        value -> StringData.fromString(value.isValueNode() ? value.asText() : value.toString()));
  }

  /**
   * The column of a Kafka Connect field schema ({@code {"type": "int64", "name":
   * "io.debezium.time.MicroTimestamp", ...}}).
   *
   * @param column the column's path, for messages
   * @throws InvalidMessageException for a schema without a type, or of a type Connect does not have
   */
  static ColumnType of(JsonNode schema, String column) {
    String type = schema.path("type").asText("");
    String name = schema.path("name").asText("");
    switch (name) {
      case "org.apache.kafka.connect.data.Decimal":
        return decimal(schema, column);
      case "io.debezium.time.Date":
      case "org.apache.kafka.connect.data.Date":
        return new ColumnType(new DateType(), value -> integral(value, column).intValue());
      case "io.debezium.time.Time":
      case "org.apache.kafka.connect.data.Time":
        return new ColumnType(new TimeType(3), value -> integral(value, column).intValue());
      case "io.debezium.time.MicroTime":
        // Flink holds TIME values in milliseconds
        return new ColumnType(
            new TimeType(6), value -> (int) Math.floorDiv(integral(value, column), 1_000L));
      case "io.debezium.time.NanoTime":
        return new ColumnType(
            new TimeType(9), value -> (int) Math.floorDiv(integral(value, column), 1_000_000L));
      case "io.debezium.time.Timestamp":
      case "org.apache.kafka.connect.data.Timestamp":
        return new ColumnType(
            new TimestampType(3), value -> TimestampData.fromEpochMillis(integral(value, column)));
      case "io.debezium.time.MicroTimestamp":
        return new ColumnType(
            new TimestampType(6), value -> fromEpoch(integral(value, column), 1_000L));
      case "io.debezium.time.NanoTimestamp":
        return new ColumnType(
            new TimestampType(9), value -> fromEpoch(integral(value, column), 1_000_000L));
      case "io.debezium.time.ZonedTimestamp":
        return new ColumnType(
            new LocalZonedTimestampType(ZONED_TIMESTAMP_PRECISION),
            value -> zonedTimestamp(value, column));
      case "io.debezium.data.VariableScaleDecimal":
        // a NUMERIC without a declared scale: each value has its own, no DECIMAL type holds all
        return new ColumnType(
            VarCharType.STRING_TYPE,
            value ->
                StringData.fromString(
                    new BigDecimal(
                            new BigInteger(bytes(value.get("value"), column)),
                            integral(value.get("scale"), column).intValue())
                        .toPlainString()));
      default:
        // Json, Enum, EnumSet, Uuid, Xml, ZonedTime, Year, Bits, ...: their Connect type says it
        return ofConnectType(schema, type, column);
    }
  }

  private static ColumnType ofConnectType(JsonNode schema, String type, String column) {
    switch (type) {
      case "boolean":
        return new ColumnType(new BooleanType(), value -> bool(value, column));
      case "int8":
        return new ColumnType(new TinyIntType(), value -> integral(value, column).byteValue());
      case "int16":
        return new ColumnType(new SmallIntType(), value -> integral(value, column).shortValue());
      case "int32":
        return new ColumnType(new IntType(), value -> integral(value, column).intValue());
      case "int64":
        return new ColumnType(new BigIntType(), value -> integral(value, column));
      case "float32":
        return new ColumnType(new FloatType(), value -> (float) floating(value, column));
      case "float64":
        return new ColumnType(new DoubleType(), value -> floating(value, column));
      case "string":
        return new ColumnType(
            VarCharType.STRING_TYPE, value -> StringData.fromString(text(value, column)));
      case "bytes":
        return new ColumnType(
            new VarBinaryType(VarBinaryType.MAX_LENGTH), value -> bytes(value, column));
      case "struct":
        return struct(schema, column);
      case "array":
        return array(schema, column);
      case "map":
        return map(schema, column);
      default:
        throw new InvalidMessageException(
            String.format(
                "column '%s' has the Kafka Connect type '%s', which the CDC sync does not know",
                column, type));
    }
  }

  private static ColumnType decimal(JsonNode schema, String column) {
    JsonNode parameters = schema.path("parameters");
    int scale = parameters.path("scale").asInt(0);
    int precision =
        parameters.has("connect.decimal.precision")
            ? parameters.path("connect.decimal.precision").asInt()
            : DEFAULT_DECIMAL_PRECISION;
    if (precision < 1 || precision > DecimalType.MAX_PRECISION || scale < 0 || scale > precision) {
      throw new InvalidMessageException(
          String.format(
              "column '%s' is a DECIMAL(%d, %d), which Flink cannot hold (precision 1 to %d)",
              column, precision, scale, DecimalType.MAX_PRECISION));
    }
    return new ColumnType(
        new DecimalType(precision, scale),
        value -> {
          BigDecimal decimal = new BigDecimal(new BigInteger(bytes(value, column)), scale);
          DecimalData data = DecimalData.fromBigDecimal(decimal, precision, scale);
          if (data == null) {
            throw new InvalidMessageException(
                String.format(
                    "column '%s': %s does not fit DECIMAL(%d, %d)",
                    column, decimal, precision, scale));
          }
          return data;
        });
  }

  private static ColumnType struct(JsonNode schema, String column) {
    List<RowType.RowField> fields = new ArrayList<>();
    List<String> names = new ArrayList<>();
    List<ColumnType> types = new ArrayList<>();
    for (JsonNode field : schema.path("fields")) {
      String name = field.path("field").asText();
      ColumnType type = of(field, column + "." + name);
      names.add(name);
      types.add(type);
      fields.add(new RowType.RowField(name, type.type()));
    }
    return new ColumnType(
        new RowType(fields),
        value -> {
          GenericRowData row = new GenericRowData(names.size());
          for (int i = 0; i < names.size(); i++) {
            row.setField(i, types.get(i).read(value.get(names.get(i))));
          }
          return row;
        });
  }

  private static ColumnType array(JsonNode schema, String column) {
    ColumnType element = of(schema.path("items"), column + "[]");
    return new ColumnType(
        new ArrayType(element.type()),
        value -> {
          Object[] elements = new Object[value.size()];
          for (int i = 0; i < elements.length; i++) {
            elements[i] = element.read(value.get(i));
          }
          return new GenericArrayData(elements);
        });
  }

  /** Connect writes a map with string keys as a JSON object (other keys are not supported). */
  private static ColumnType map(JsonNode schema, String column) {
    if (!"string".equals(schema.path("keys").path("type").asText())) {
      throw new InvalidMessageException(
          String.format("column '%s' is a map whose keys are not strings", column));
    }
    ColumnType values = of(schema.path("values"), column + "{}");
    return new ColumnType(
        new MapType(VarCharType.STRING_TYPE, values.type()),
        value -> {
          Map<Object, Object> entries = new HashMap<>();
          for (Iterator<Map.Entry<String, JsonNode>> it = value.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> entry = it.next();
            entries.put(StringData.fromString(entry.getKey()), values.read(entry.getValue()));
          }
          return new GenericMapData(entries);
        });
  }

  private static TimestampData fromEpoch(long value, long unitsPerMilli) {
    long millis = Math.floorDiv(value, unitsPerMilli);
    long remainder = Math.floorMod(value, unitsPerMilli);
    return TimestampData.fromEpochMillis(millis, (int) (remainder * (1_000_000L / unitsPerMilli)));
  }

  private static TimestampData zonedTimestamp(JsonNode value, String column) {
    String text = text(value, column);
    try {
      return TimestampData.fromInstant(
          OffsetDateTime.parse(text).toInstant().truncatedTo(ChronoUnit.MICROS));
    } catch (DateTimeParseException e) {
      throw new InvalidMessageException(
          String.format(
              "column '%s': '%s' is not an ISO-8601 timestamp with an offset", column, text));
    }
  }

  private static Long integral(JsonNode value, String column) {
    if (value == null || !value.isIntegralNumber() || !value.canConvertToLong()) {
      throw mismatch(value, column, "an integer");
    }
    return value.longValue();
  }

  /** Debezium writes NaN and the infinities as strings. */
  private static double floating(JsonNode value, String column) {
    if (value.isNumber()) {
      return value.doubleValue();
    }
    if (value.isTextual()) {
      try {
        return Double.parseDouble(value.asText());
      } catch (NumberFormatException e) {
        throw mismatch(value, column, "a number");
      }
    }
    throw mismatch(value, column, "a number");
  }

  private static boolean bool(JsonNode value, String column) {
    if (!value.isBoolean()) {
      throw mismatch(value, column, "a boolean");
    }
    return value.booleanValue();
  }

  private static String text(JsonNode value, String column) {
    if (!value.isTextual()) {
      throw mismatch(value, column, "a string");
    }
    return value.textValue();
  }

  /** Connect's JSON converter writes bytes in base64. */
  private static byte[] bytes(JsonNode value, String column) {
    if (value == null || !value.isTextual()) {
      throw mismatch(value, column, "base64 bytes");
    }
    try {
      return value.binaryValue();
    } catch (IOException | IllegalArgumentException e) {
      throw mismatch(value, column, "base64 bytes");
    }
  }

  /** Names the column and the JSON type, never the value (it may be anybody's data). */
  private static InvalidMessageException mismatch(JsonNode value, String column, String expected) {
    return new InvalidMessageException(
        String.format(
            "column '%s' holds a JSON %s where its schema says %s",
            column, value == null ? "nothing" : value.getNodeType(), expected));
  }
}
