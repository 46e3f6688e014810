package dev.flinklance.cdc;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flinklance.cdc.testing.Debezium;
import dev.flinklance.sink.dynamic.DynamicLanceSink;
import dev.flinklance.sink.dynamic.DynamicRecord;
import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.TestClusters;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Each Debezium type through the whole path: a change event with its Connect schema, read by the
 * sync, written by the dynamic sink, read back from the Lance table with plain lance-core.
 */
class DebeziumTypesRoundTripITCase {
  @RegisterExtension static final MiniClusterExtension CLUSTER = TestClusters.withoutRestarts();

  /**
   * Column: Connect type, Debezium name, JSON value, the value lance-core reads back (Arrow's Java
   * object as text: TIME(3) reads as a LocalDateTime of 1970-01-01, TIME(6) as microseconds,
   * TIMESTAMP_LTZ as microseconds since the epoch, DATE as days).
   */
  private static final List<String[]> COLUMNS =
      List.of(
          new String[] {"id", "int32", null, "1", "1"},
          new String[] {"c_int8", "int8", null, "7", "7"},
          new String[] {"c_int16", "int16", null, "-300", "-300"},
          new String[] {"c_int64", "int64", null, "9007199254740993", "9007199254740993"},
          new String[] {"c_float32", "float32", null, "1.5", "1.5"},
          new String[] {"c_float64", "float64", null, "2.25", "2.25"},
          new String[] {"c_boolean", "boolean", null, "true", "true"},
          new String[] {"c_string", "string", null, "\"Sally\"", "Sally"},
          new String[] {"c_bytes", "bytes", null, "\"AQL/\"", "[1, 2, -1]"},
          new String[] {"c_date", "int32", "io.debezium.time.Date", "19782", "19782"},
          new String[] {
            "c_time", "int32", "io.debezium.time.Time", "36930123", "1970-01-01T10:15:30.123"
          },
          // Flink holds TIME in milliseconds: the microseconds past them are cut
          new String[] {
            "c_micro_time", "int64", "io.debezium.time.MicroTime", "36930123456", "36930123000"
          },
          new String[] {
            "c_timestamp",
            "int64",
            "io.debezium.time.Timestamp",
            "1709288130123",
            "2024-03-01T10:15:30.123"
          },
          new String[] {
            "c_micro_timestamp",
            "int64",
            "io.debezium.time.MicroTimestamp",
            "1709288130123456",
            "2024-03-01T10:15:30.123456"
          },
          new String[] {
            "c_nano_timestamp",
            "int64",
            "io.debezium.time.NanoTimestamp",
            "1709288130123456789",
            "2024-03-01T10:15:30.123456789"
          },
          new String[] {
            "c_zoned_timestamp",
            "string",
            "io.debezium.time.ZonedTimestamp",
            "\"2024-03-01T12:15:30.123456+02:00\"",
            "1709288130123456"
          },
          new String[] {
            "c_json", "string", "io.debezium.data.Json", "\"{\\\"a\\\": 1}\"", "{\"a\": 1}"
          },
          new String[] {"c_enum", "string", "io.debezium.data.Enum", "\"shipped\"", "shipped"},
          new String[] {"c_bits", "bytes", "io.debezium.data.Bits", "\"BQ==\"", "[5]"},
          new String[] {"c_year", "int32", "io.debezium.time.Year", "2024", "2024"});

  @TempDir Path dir;

  @Test
  void everyTypeReadsBackFromLance() throws Exception {
    ObjectNode after = Debezium.JSON.createObjectNode();
    List<Debezium.Column> columns = new ArrayList<>();
    for (String[] column : COLUMNS) {
      columns.add(Debezium.column(column[0], column[1], column[2]));
      after.set(column[0], Debezium.JSON.readTree(column[3]));
    }
    columns.add(Debezium.decimal("c_decimal", 10, 2));
    after.put("c_decimal", "AeI6"); // 1234.50
    Debezium.Table table = new Debezium.Table("inventory", "all_types", columns, List.of("id"));
    Map<String, Object> row = new LinkedHashMap<>();
    after.fields().forEachRemaining(field -> row.put(field.getKey(), field.getValue()));

    DebeziumChanges changes =
        new DebeziumChanges(new TableRouting("inventory", null, null, "", ""));
    DynamicRecord record =
        changes
            .parse(
                "dbserver1.inventory.all_types",
                table.key(row, true).getBytes(StandardCharsets.UTF_8),
                table.value("c", null, row, true).getBytes(StandardCharsets.UTF_8))
            .orElseThrow();
    String warehouse = dir.resolve("warehouse").toString();
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setRuntimeMode(RuntimeExecutionMode.BATCH);
    env.fromData(record).sinkTo(DynamicLanceSink.builder().warehouse(warehouse).build());
    env.execute("every Debezium type");

    List<String> names = new ArrayList<>();
    List<String> expected = new ArrayList<>();
    for (String[] column : COLUMNS) {
      names.add(column[0]);
      expected.add(column[4]);
    }
    names.add("c_decimal");
    expected.add("1234.50");
    List<List<Object>> rows =
        LanceTestTables.readColumns(warehouse + "/inventory/all_types.lance", names);
    assertThat(rows).hasSize(1);
    List<String> actual = new ArrayList<>();
    for (Object value : rows.get(0)) {
      actual.add(value instanceof byte[] bytes ? Arrays.toString(bytes) : String.valueOf(value));
    }
    Map<String, String> byColumn = new LinkedHashMap<>();
    Map<String, String> expectedByColumn = new LinkedHashMap<>();
    for (int i = 0; i < names.size(); i++) {
      byColumn.put(names.get(i), actual.get(i));
      expectedByColumn.put(names.get(i), expected.get(i));
    }
    assertThat(byColumn).isEqualTo(expectedByColumn);
  }
}
