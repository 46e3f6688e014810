package dev.flinklance.cdc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flinklance.cdc.testing.Debezium;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.util.Base64;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Each Debezium / Kafka Connect type: the Flink type it becomes and the value read from JSON. */
class DebeziumTypesTest {

  static Stream<Arguments> types() {
    return Stream.of(
        Arguments.of("int8", null, "7", "TINYINT", (byte) 7),
        Arguments.of("int16", null, "-300", "SMALLINT", (short) -300),
        Arguments.of("int32", null, "70000", "INT", 70000),
        Arguments.of("int64", null, "9007199254740993", "BIGINT", 9007199254740993L),
        Arguments.of("float32", null, "1.5", "FLOAT", 1.5f),
        Arguments.of("float64", null, "2.25", "DOUBLE", 2.25d),
        Arguments.of("float64", null, "\"NaN\"", "DOUBLE", Double.NaN),
        Arguments.of("boolean", null, "true", "BOOLEAN", true),
        Arguments.of("string", null, "\"Sally\"", "STRING", StringData.fromString("Sally")),
        Arguments.of(
            "bytes", null, "\"" + base64(1, 2, 255) + "\"", "BYTES", new byte[] {1, 2, -1}),
        Arguments.of(
            "int32",
            "io.debezium.time.Date",
            Long.toString(LocalDate.of(2024, 2, 29).toEpochDay()),
            "DATE",
            (int) LocalDate.of(2024, 2, 29).toEpochDay()),
        Arguments.of(
            "int32",
            "io.debezium.time.Time",
            Integer.toString(LocalTime.of(10, 15, 30, 123_000_000).toSecondOfDay() * 1000 + 123),
            "TIME(3)",
            (10 * 3600 + 15 * 60 + 30) * 1000 + 123),
        Arguments.of(
            "int64",
            "io.debezium.time.MicroTime",
            Long.toString((10L * 3600 + 15 * 60 + 30) * 1_000_000 + 123_456),
            "TIME(6)",
            (10 * 3600 + 15 * 60 + 30) * 1000 + 123),
        Arguments.of(
            "int64",
            "io.debezium.time.NanoTime",
            Long.toString((10L * 3600 + 15 * 60 + 30) * 1_000_000_000 + 123_456_789),
            "TIME(9)",
            (10 * 3600 + 15 * 60 + 30) * 1000 + 123),
        Arguments.of(
            "int64",
            "io.debezium.time.Timestamp",
            Long.toString(Instant.parse("2024-03-01T10:15:30.123Z").toEpochMilli()),
            "TIMESTAMP(3)",
            TimestampData.fromLocalDateTime(LocalDateTime.parse("2024-03-01T10:15:30.123"))),
        Arguments.of(
            "int64",
            "io.debezium.time.MicroTimestamp",
            "1709288130123456",
            "TIMESTAMP(6)",
            TimestampData.fromLocalDateTime(LocalDateTime.parse("2024-03-01T10:15:30.123456"))),
        Arguments.of(
            "int64",
            "io.debezium.time.MicroTimestamp",
            "-1",
            "TIMESTAMP(6)",
            TimestampData.fromLocalDateTime(LocalDateTime.parse("1969-12-31T23:59:59.999999"))),
        Arguments.of(
            "int64",
            "io.debezium.time.NanoTimestamp",
            "1709288130123456789",
            "TIMESTAMP(9)",
            TimestampData.fromLocalDateTime(LocalDateTime.parse("2024-03-01T10:15:30.123456789"))),
        Arguments.of(
            "string",
            "io.debezium.time.ZonedTimestamp",
            "\"2024-03-01T12:15:30.123456+02:00\"",
            "TIMESTAMP_LTZ(6)",
            TimestampData.fromInstant(Instant.parse("2024-03-01T10:15:30.123456Z"))),
        Arguments.of(
            "string",
            "io.debezium.data.Json",
            "\"{\\\"a\\\": [1, 2]}\"",
            "STRING",
            StringData.fromString("{\"a\": [1, 2]}")),
        Arguments.of(
            "string",
            "io.debezium.data.Enum",
            "\"shipped\"",
            "STRING",
            StringData.fromString("shipped")),
        Arguments.of(
            "string",
            "io.debezium.data.EnumSet",
            "\"a,c\"",
            "STRING",
            StringData.fromString("a,c")),
        Arguments.of(
            "bytes", "io.debezium.data.Bits", "\"" + base64(5) + "\"", "BYTES", new byte[] {5}),
        Arguments.of("int32", "io.debezium.time.Year", "2024", "INT", 2024));
  }

  @ParameterizedTest(name = "{0} {1} -> {3}")
  @MethodSource("types")
  void debeziumTypeBecomesFlinkTypeAndValue(
      String connectType, String logicalName, String json, String flinkType, Object expected)
      throws Exception {
    ColumnType column =
        DebeziumTypes.of(Debezium.column("c", connectType, logicalName).schema(), "c");
    assertThat(column.type().asSummaryString()).isEqualTo(flinkType);
    assertThat(column.read(Debezium.JSON.readTree(json))).isEqualTo(expected);
    assertThat(column.read(Debezium.JSON.nullNode())).isNull();
  }

  @Test
  void decimalTakesPrecisionAndScaleFromTheSchema() throws Exception {
    ColumnType column = DebeziumTypes.of(Debezium.decimal("price", 10, 2).schema(), "price");
    assertThat(column.type().asSummaryString()).isEqualTo("DECIMAL(10, 2)");
    // 1234.50 -> unscaled 123450, big-endian two's complement
    assertThat(column.read(text(base64(0x01, 0xE2, 0x3A))))
        .isEqualTo(DecimalData.fromBigDecimal(new BigDecimal("1234.50"), 10, 2));
    assertThat(column.read(text(base64(0xFF, 0x85))))
        .isEqualTo(DecimalData.fromBigDecimal(new BigDecimal("-1.23"), 10, 2));
  }

  @Test
  void decimalWithoutPrecisionIsDecimal38() {
    JsonNode schema = Debezium.decimal("d", 10, 4).schema().deepCopy();
    ((com.fasterxml.jackson.databind.node.ObjectNode) schema.get("parameters"))
        .remove("connect.decimal.precision");
    assertThat(DebeziumTypes.of(schema, "d").type().asSummaryString()).isEqualTo("DECIMAL(38, 4)");
  }

  @Test
  void aDecimalTooLargeForItsTypeNamesTheColumn() {
    ColumnType column = DebeziumTypes.of(Debezium.decimal("price", 3, 2).schema(), "price");
    // 12345.67 in a DECIMAL(3, 2)
    assertThatThrownBy(() -> column.read(text(base64(0x12, 0xD6, 0x87))))
        .isInstanceOf(InvalidMessageException.class)
        .hasMessageContaining("'price'")
        .hasMessageContaining("DECIMAL(3, 2)");
  }

  @Test
  void structsAndArraysNest() throws Exception {
    JsonNode schema =
        Debezium.JSON.readTree(
            "{\"type\":\"struct\",\"field\":\"point\",\"fields\":["
                + "{\"type\":\"float64\",\"field\":\"x\"},"
                + "{\"type\":\"array\",\"field\":\"tags\",\"items\":{\"type\":\"string\"}}]}");
    ColumnType column = DebeziumTypes.of(schema, "point");
    assertThat(column.type().asSummaryString()).isEqualTo("ROW<`x` DOUBLE, `tags` ARRAY<STRING>>");
    assertThat(column.read(Debezium.JSON.readTree("{\"x\": 1.5, \"tags\": [\"a\", null]}")))
        .isEqualTo(
            GenericRowData.of(
                1.5d, new GenericArrayData(new Object[] {StringData.fromString("a"), null})));
  }

  @Test
  void variableScaleDecimalIsItsText() throws Exception {
    ColumnType column =
        DebeziumTypes.of(
            Debezium.column("n", "struct", "io.debezium.data.VariableScaleDecimal").schema(), "n");
    assertThat(column.type().asSummaryString()).isEqualTo("STRING");
    assertThat(column.read(Debezium.JSON.readTree("{\"scale\": 3, \"value\": \"MDk=\"}")))
        .isEqualTo(StringData.fromString("12.345"));
  }

  /** Without a schema, every column is STRING: a table never changes type with the values. */
  @Test
  void withoutSchemaEveryValueIsItsJsonText() throws Exception {
    ColumnType column = DebeziumTypes.schemaless();
    assertThat(column.type().asSummaryString()).isEqualTo("STRING");
    for (Map.Entry<String, String> value :
        Map.of(
                "12", "12",
                "12.50", "12.50",
                "true", "true",
                "\"text\"", "text",
                "{\"a\":[1,2]}", "{\"a\":[1,2]}")
            .entrySet()) {
      assertThat(column.read(DebeziumChanges.newMapper().readTree(value.getKey())))
          .isEqualTo(StringData.fromString(value.getValue()));
    }
  }

  @Test
  void aValueOfTheWrongJsonTypeNamesColumnAndTypes() {
    ColumnType column = DebeziumTypes.of(Debezium.column("age", "int32").schema(), "age");
    assertThatThrownBy(() -> column.read(text("forty")))
        .isInstanceOf(InvalidMessageException.class)
        .hasMessage("column 'age' holds a JSON STRING where its schema says an integer");
  }

  @Test
  void anUnknownConnectTypeNamesTheColumn() {
    assertThatThrownBy(() -> DebeziumTypes.of(Debezium.column("x", "int128").schema(), "x"))
        .isInstanceOf(InvalidMessageException.class)
        .hasMessageContaining("'x'")
        .hasMessageContaining("'int128'");
  }

  private static JsonNode text(String value) {
    return Debezium.JSON.getNodeFactory().textNode(value);
  }

  private static String base64(int... bytes) {
    byte[] raw = new byte[bytes.length];
    for (int i = 0; i < bytes.length; i++) {
      raw[i] = (byte) bytes[i];
    }
    return Base64.getEncoder().encodeToString(raw);
  }
}
