package dev.flinklance.sink.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flinklance.sink.LanceSink;
import dev.flinklance.sink.LanceSinkBuilder;
import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.TestClusters;
import dev.flinklance.testing.TestFragments;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.util.Text;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericMapData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every supported Flink type, written through a real job and read back with Lance's own scanner,
 * including nulls at every nesting level.
 */
class TypeRoundTripITCase {
  @RegisterExtension static final MiniClusterExtension CLUSTER = TestClusters.withoutRestarts();

  static final RowType TYPE =
      (RowType)
          DataTypes.ROW(
                  DataTypes.FIELD("id", DataTypes.BIGINT().notNull()),
                  DataTypes.FIELD("b", DataTypes.BOOLEAN()),
                  DataTypes.FIELD("ti", DataTypes.TINYINT()),
                  DataTypes.FIELD("si", DataTypes.SMALLINT()),
                  DataTypes.FIELD("i", DataTypes.INT()),
                  DataTypes.FIELD("bi", DataTypes.BIGINT()),
                  DataTypes.FIELD("f", DataTypes.FLOAT()),
                  DataTypes.FIELD("d", DataTypes.DOUBLE()),
                  DataTypes.FIELD("dec_small", DataTypes.DECIMAL(10, 2)),
                  DataTypes.FIELD("dec_big", DataTypes.DECIMAL(38, 10)),
                  DataTypes.FIELD("c", DataTypes.CHAR(3)),
                  DataTypes.FIELD("s", DataTypes.STRING()),
                  DataTypes.FIELD("bin", DataTypes.BINARY(4)),
                  DataTypes.FIELD("vb", DataTypes.BYTES()),
                  DataTypes.FIELD("dt", DataTypes.DATE()),
                  DataTypes.FIELD("t3", DataTypes.TIME(3)),
                  DataTypes.FIELD("t6", DataTypes.TIME(6)),
                  DataTypes.FIELD("ts3", DataTypes.TIMESTAMP(3)),
                  DataTypes.FIELD("ts6", DataTypes.TIMESTAMP(6)),
                  DataTypes.FIELD("ts9", DataTypes.TIMESTAMP(9)),
                  DataTypes.FIELD("ltz3", DataTypes.TIMESTAMP_LTZ(3)),
                  DataTypes.FIELD("ltz6", DataTypes.TIMESTAMP_LTZ(6)),
                  DataTypes.FIELD("arr", DataTypes.ARRAY(DataTypes.INT())),
                  DataTypes.FIELD("nested", DataTypes.ARRAY(DataTypes.ARRAY(DataTypes.BIGINT()))),
                  DataTypes.FIELD("m", DataTypes.MAP(DataTypes.STRING(), DataTypes.INT())),
                  DataTypes.FIELD(
                      "r",
                      DataTypes.ROW(
                          DataTypes.FIELD("x", DataTypes.INT()),
                          DataTypes.FIELD("y", DataTypes.STRING()),
                          DataTypes.FIELD(
                              "z", DataTypes.ROW(DataTypes.FIELD("w", DataTypes.DOUBLE()))))),
                  DataTypes.FIELD(
                      "arr_row",
                      DataTypes.ARRAY(
                          DataTypes.ROW(
                              DataTypes.FIELD("k", DataTypes.STRING()),
                              DataTypes.FIELD("v", DataTypes.INT())))),
                  DataTypes.FIELD("vec", DataTypes.ARRAY(DataTypes.FLOAT())))
              .notNull()
              .getLogicalType();

  static final long MILLIS = 1_700_000_000_123L;
  static final int TIME_MILLIS = 45_296_789;

  @TempDir Path dir;

  @Test
  void everyTypeRoundTripsWithNullsAtEveryLevel() throws Exception {
    String table = dir.resolve("types").toString();
    write(
        TYPE,
        List.of(fullRow(), nullRow(), nestedNullsRow()),
        LanceSink.forRowData(TYPE).path(table).vectorColumn("vec", 4));

    List<String> columns = TYPE.getFieldNames();
    Map<Long, Map<String, Object>> byId = new HashMap<>();
    readById(table, columns)
        .forEach(
            (id, row) -> {
              Map<String, Object> values = new LinkedHashMap<>();
              for (int i = 0; i < columns.size(); i++) {
                values.put(columns.get(i), row.get(i));
              }
              byId.put(id, values);
            });
    assertThat(byId).containsOnlyKeys(1L, 2L, 3L);
    assertThat(byId.get(1L)).isEqualTo(expectedFullRow());
    assertThat(byId.get(2L)).isEqualTo(expectedNullRow());
    assertThat(byId.get(3L)).isEqualTo(expectedNestedNullsRow());
  }

  /**
   * A nullable ROW with a NOT NULL field, and a nullable vector of NOT NULL floats: when the
   * container is null, its NOT NULL children still hold a slot (Arrow) and must not be rejected.
   */
  @Test
  void nullContainersWithNotNullChildren() throws Exception {
    RowType type =
        (RowType)
            DataTypes.ROW(
                    DataTypes.FIELD("id", DataTypes.BIGINT().notNull()),
                    DataTypes.FIELD(
                        "point",
                        DataTypes.ROW(
                            DataTypes.FIELD("x", DataTypes.DOUBLE().notNull()),
                            DataTypes.FIELD("label", DataTypes.STRING().notNull()))),
                    DataTypes.FIELD("vec", DataTypes.ARRAY(DataTypes.FLOAT().notNull())),
                    DataTypes.FIELD("tags", DataTypes.ARRAY(DataTypes.STRING().notNull())))
                .notNull()
                .getLogicalType();
    String table = dir.resolve("nested-not-null").toString();
    write(
        type,
        List.of(
            GenericRowData.of(
                1L,
                GenericRowData.of(1.5d, StringData.fromString("p")),
                new GenericArrayData(new float[] {1f, 2f}),
                new GenericArrayData(new Object[] {StringData.fromString("t")})),
            GenericRowData.of(2L, null, null, null)),
        LanceSink.forRowData(type).path(table).vectorColumn("vec", 2));

    Map<Long, List<Object>> rows = readById(table, type.getFieldNames());
    assertThat(rows.get(1L))
        .containsExactly(1L, Map.of("x", 1.5d, "label", "p"), List.of(1f, 2f), List.of("t"));
    assertThat(rows.get(2L)).containsExactly(2L, null, null, null);
  }

  /** Containers inside containers, empty values, and a list element ROW with a NOT NULL field. */
  @Test
  void nestedCombinationsAndEmptyValues() throws Exception {
    RowType type =
        (RowType)
            DataTypes.ROW(
                    DataTypes.FIELD("id", DataTypes.BIGINT().notNull()),
                    DataTypes.FIELD(
                        "m", DataTypes.MAP(DataTypes.STRING(), DataTypes.ARRAY(DataTypes.INT()))),
                    DataTypes.FIELD(
                        "lists", DataTypes.ARRAY(DataTypes.ARRAY(DataTypes.FLOAT().notNull()))),
                    DataTypes.FIELD(
                        "items",
                        DataTypes.ARRAY(
                            DataTypes.ROW(DataTypes.FIELD("k", DataTypes.STRING().notNull())))),
                    DataTypes.FIELD("s", DataTypes.STRING()))
                .notNull()
                .getLogicalType();
    String table = dir.resolve("nested").toString();
    write(
        type,
        List.of(
            GenericRowData.of(
                1L,
                new GenericMapData(
                    mapOf(
                        StringData.fromString("a"),
                        new GenericArrayData(new Integer[] {1, null}),
                        StringData.fromString("b"),
                        null)),
                new GenericArrayData(
                    new Object[] {
                      new GenericArrayData(new float[] {1f, 2f}),
                      null,
                      new GenericArrayData(new float[0])
                    }),
                new GenericArrayData(
                    new Object[] {GenericRowData.of(StringData.fromString("x")), null}),
                StringData.fromString("")),
            GenericRowData.of(
                2L,
                new GenericMapData(Map.of()),
                new GenericArrayData(new Object[0]),
                new GenericArrayData(new Object[0]),
                null)),
        LanceSink.forRowData(type).path(table));

    Map<Long, List<Object>> rows = readById(table, type.getFieldNames());
    assertThat(rows.get(1L))
        .containsExactly(
            1L,
            List.of(Map.of("key", "a", "value", Arrays.asList(1, null)), Map.of("key", "b")),
            Arrays.asList(List.of(1f, 2f), null, List.of()),
            Arrays.asList(Map.of("k", "x"), null),
            "");
    assertThat(rows.get(2L)).containsExactly(2L, List.of(), List.of(), List.of(), null);
  }

  /**
   * An existing table whose columns use other Arrow encodings than the sink would pick: large
   * strings and binaries, fixed-size binary, second and nanosecond time units, a zoned timestamp
   * and an undeclared vector column. Columns are matched by name, in another order.
   */
  @Test
  void writesIntoAnExistingTablesOwnEncodings() throws Exception {
    String table = dir.resolve("existing").toString();
    TestFragments.createTable(
        table,
        new Schema(
            List.of(
                Field.notNullable("id", new ArrowType.Int(64, true)),
                Field.nullable("s", ArrowType.LargeUtf8.INSTANCE),
                Field.nullable("b", ArrowType.LargeBinary.INSTANCE),
                Field.nullable("fb", new ArrowType.FixedSizeBinary(4)),
                Field.nullable("ts_sec", new ArrowType.Timestamp(TimeUnit.SECOND, null)),
                Field.nullable(
                    "ltz_nano", new ArrowType.Timestamp(TimeUnit.NANOSECOND, "Europe/Berlin")),
                Field.nullable("t_sec", new ArrowType.Time(TimeUnit.SECOND, 32)),
                Field.nullable("t_nano", new ArrowType.Time(TimeUnit.NANOSECOND, 64)),
                new Field(
                    "vec",
                    FieldType.nullable(new ArrowType.FixedSizeList(3)),
                    List.of(
                        Field.notNullable(
                            "item",
                            new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)))))));
    RowType type =
        (RowType)
            DataTypes.ROW(
                    DataTypes.FIELD("vec", DataTypes.ARRAY(DataTypes.FLOAT().notNull())),
                    DataTypes.FIELD("id", DataTypes.BIGINT().notNull()),
                    DataTypes.FIELD("s", DataTypes.STRING()),
                    DataTypes.FIELD("b", DataTypes.BYTES()),
                    DataTypes.FIELD("fb", DataTypes.BINARY(4)),
                    DataTypes.FIELD("ts_sec", DataTypes.TIMESTAMP(3)),
                    DataTypes.FIELD("ltz_nano", DataTypes.TIMESTAMP_LTZ(9)),
                    DataTypes.FIELD("t_sec", DataTypes.TIME(0)),
                    DataTypes.FIELD("t_nano", DataTypes.TIME(3)))
                .notNull()
                .getLogicalType();
    RowData row =
        GenericRowData.of(
            new GenericArrayData(new float[] {1f, 2f, 3f}),
            1L,
            StringData.fromString("large"),
            new byte[] {9, 8},
            new byte[] {1, 2, 3, 4},
            TimestampData.fromEpochMillis(MILLIS),
            TimestampData.fromEpochMillis(MILLIS, 456_789),
            TIME_MILLIS,
            TIME_MILLIS);
    write(type, List.of(row), LanceSink.forRowData(type).path(table));

    List<String> columns =
        List.of("id", "s", "b", "fb", "ts_sec", "ltz_nano", "t_sec", "t_nano", "vec");
    assertThat(readById(table, columns).get(1L))
        .containsExactly(
            1L,
            "large",
            "0908",
            "01020304",
            LocalDateTime.ofEpochSecond(MILLIS / 1000, 0, ZoneOffset.UTC),
            MILLIS * 1_000_000 + 456_789,
            TIME_MILLIS / 1000,
            TIME_MILLIS * 1_000_000L,
            List.of(1f, 2f, 3f));
  }

  private static RowData fullRow() {
    return GenericRowData.of(
        1L,
        true,
        (byte) -7,
        (short) 1234,
        -42,
        1L << 40,
        1.5f,
        -2.25d,
        DecimalData.fromBigDecimal(new BigDecimal("12345678.90"), 10, 2),
        DecimalData.fromBigDecimal(
            new BigDecimal("1234567890123456789012345678.0123456789"), 38, 10),
        StringData.fromString("abc"),
        StringData.fromString("héllo ✓"),
        new byte[] {1, 2, 3, 4},
        new byte[] {0, -1, 127},
        19_000,
        TIME_MILLIS,
        TIME_MILLIS,
        TimestampData.fromEpochMillis(MILLIS),
        TimestampData.fromEpochMillis(MILLIS, 456_000),
        TimestampData.fromEpochMillis(MILLIS, 456_789),
        TimestampData.fromEpochMillis(MILLIS),
        TimestampData.fromEpochMillis(MILLIS, 456_000),
        new GenericArrayData(new Integer[] {1, null, 3}),
        new GenericArrayData(
            new Object[] {
              new GenericArrayData(new Long[] {1L, 2L}), null, new GenericArrayData(new Long[0])
            }),
        new GenericMapData(mapOf(StringData.fromString("a"), 1, StringData.fromString("b"), null)),
        GenericRowData.of(7, StringData.fromString("seven"), GenericRowData.of(0.5d)),
        new GenericArrayData(
            new Object[] {
              GenericRowData.of(StringData.fromString("k1"), 1),
              null,
              GenericRowData.of(StringData.fromString("k3"), null)
            }),
        new GenericArrayData(new float[] {0.1f, 0.2f, 0.3f, 0.4f}));
  }

  private static Map<String, Object> expectedFullRow() {
    LocalDateTime ts = LocalDateTime.ofEpochSecond(MILLIS / 1000, 123_000_000, ZoneOffset.UTC);
    Map<String, Object> row = new LinkedHashMap<>();
    row.put("id", 1L);
    row.put("b", true);
    row.put("ti", (byte) -7);
    row.put("si", (short) 1234);
    row.put("i", -42);
    row.put("bi", 1L << 40);
    row.put("f", 1.5f);
    row.put("d", -2.25d);
    row.put("dec_small", new BigDecimal("12345678.90"));
    row.put("dec_big", new BigDecimal("1234567890123456789012345678.0123456789"));
    row.put("c", "abc");
    row.put("s", "héllo ✓");
    row.put("bin", "01020304");
    row.put("vb", "00ff7f");
    row.put("dt", 19_000);
    row.put(
        "t3",
        LocalDateTime.ofEpochSecond(0, 0, ZoneOffset.UTC).plusNanos(TIME_MILLIS * 1_000_000L));
    row.put("t6", TIME_MILLIS * 1_000L);
    row.put("ts3", ts);
    row.put("ts6", ts.plusNanos(456_000));
    row.put("ts9", ts.plusNanos(456_789));
    row.put("ltz3", MILLIS);
    row.put("ltz6", MILLIS * 1_000 + 456);
    row.put("arr", Arrays.asList(1, null, 3));
    row.put("nested", Arrays.asList(List.of(1L, 2L), null, List.of()));
    row.put("m", List.of(Map.of("key", "a", "value", 1), Map.of("key", "b")));
    row.put("r", Map.of("x", 7, "y", "seven", "z", Map.of("w", 0.5d)));
    row.put("arr_row", Arrays.asList(Map.of("k", "k1", "v", 1), null, Map.of("k", "k3")));
    row.put("vec", List.of(0.1f, 0.2f, 0.3f, 0.4f));
    return row;
  }

  private static RowData nullRow() {
    GenericRowData row = new GenericRowData(TYPE.getFieldCount());
    row.setField(0, 2L);
    return row;
  }

  private static Map<String, Object> expectedNullRow() {
    Map<String, Object> row = new LinkedHashMap<>();
    TYPE.getFieldNames().forEach(name -> row.put(name, null));
    row.put("id", 2L);
    return row;
  }

  /** Non-null containers whose contents are null: null field, null element, null map value. */
  private static RowData nestedNullsRow() {
    GenericRowData row = new GenericRowData(TYPE.getFieldCount());
    row.setField(0, 3L);
    row.setField(22, new GenericArrayData(new Integer[] {null}));
    row.setField(23, new GenericArrayData(new Object[] {new GenericArrayData(new Long[] {null})}));
    row.setField(24, new GenericMapData(Map.of()));
    row.setField(25, GenericRowData.of(null, null, null));
    row.setField(26, new GenericArrayData(new Object[] {GenericRowData.of(null, null)}));
    return row;
  }

  private static Map<String, Object> expectedNestedNullsRow() {
    Map<String, Object> row = expectedNullRow();
    row.put("id", 3L);
    row.put("arr", Arrays.asList((Object) null));
    row.put("nested", List.of(Arrays.asList((Object) null)));
    row.put("m", List.of());
    row.put("r", Map.of());
    row.put("arr_row", List.of(Map.of()));
    return row;
  }

  private static void write(RowType type, List<RowData> rows, LanceSinkBuilder<RowData> sink)
      throws Exception {
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setParallelism(1);
    env.fromData(rows, InternalTypeInfo.of(type)).sinkTo(sink.build());
    env.execute();
  }

  /** The table's rows by their id (the first column), values normalized. */
  private static Map<Long, List<Object>> readById(String table, List<String> columns) {
    Map<Long, List<Object>> rows = new HashMap<>();
    for (List<Object> row : LanceTestTables.readColumns(table, columns)) {
      List<Object> values = new ArrayList<>();
      row.forEach(value -> values.add(normalize(value)));
      rows.put((Long) row.get(0), values);
    }
    return rows;
  }

  private static Map<Object, Object> mapOf(Object... keysAndValues) {
    Map<Object, Object> map = new LinkedHashMap<>();
    for (int i = 0; i < keysAndValues.length; i += 2) {
      map.put(keysAndValues[i], keysAndValues[i + 1]);
    }
    return map;
  }

  /** Arrow's Java objects to plain, comparable ones (Text, byte[] and JSON collections). */
  private static Object normalize(Object value) {
    if (value instanceof Text) {
      return value.toString();
    }
    if (value instanceof byte[]) {
      return HexFormat.of().formatHex((byte[]) value);
    }
    if (value instanceof List) {
      List<Object> list = new ArrayList<>();
      ((List<?>) value).forEach(element -> list.add(normalize(element)));
      return list;
    }
    if (value instanceof Map) {
      Map<Object, Object> map = new HashMap<>();
      ((Map<?, ?>) value)
          .forEach(
              (k, v) -> {
                if (v != null) {
                  map.put(k, normalize(v));
                }
              });
      return map;
    }
    return value;
  }
}
