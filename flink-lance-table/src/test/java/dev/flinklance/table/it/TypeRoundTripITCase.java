package dev.flinklance.table.it;

import static dev.flinklance.table.testing.Sql.exec;
import static dev.flinklance.table.testing.Sql.queryStrings;
import static org.assertj.core.api.Assertions.assertThat;

import dev.flinklance.table.testing.Sql;
import dev.flinklance.testing.TestClusters;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.DateMilliVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.Float2Vector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.LargeVarBinaryVector;
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.TimeNanoVector;
import org.apache.arrow.vector.TimeSecVector;
import org.apache.arrow.vector.TimeStampMicroTZVector;
import org.apache.arrow.vector.TimeStampNanoVector;
import org.apache.arrow.vector.TimeStampSecVector;
import org.apache.arrow.vector.UInt1Vector;
import org.apache.arrow.vector.UInt2Vector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.lance.Dataset;
import org.lance.WriteParams;

/** Every type through SQL: what the sink writes reads back equal; what others write reads. */
class TypeRoundTripITCase {
  @RegisterExtension static final MiniClusterExtension CLUSTER = TestClusters.withoutRestarts();

  @TempDir Path dir;

  private static final String COLUMNS =
      "b BOOLEAN, ti TINYINT, si SMALLINT, i INT, bi BIGINT, f FLOAT, d DOUBLE,"
          + " dcm DECIMAL(38, 10), dcm_small DECIMAL(5, 2), c CHAR(3), vc VARCHAR(10), s STRING,"
          + " bin BINARY(2), vb BYTES, dt DATE, t TIME(3), ts0 TIMESTAMP(0), ts3 TIMESTAMP(3),"
          + " ts6 TIMESTAMP(6), ts9 TIMESTAMP(9), ltz TIMESTAMP_LTZ(6), arr ARRAY<INT>,"
          + " vec ARRAY<FLOAT NOT NULL>, m MAP<STRING, INT>, r ROW<a INT, b STRING>,"
          + " nested ARRAY<ROW<x DOUBLE>>";

  private static final String NAMES =
      "b, ti, si, i, bi, f, d, dcm, dcm_small, c, vc, s, bin, vb, dt, t, ts0, ts3, ts6, ts9, ltz,"
          + " arr, vec, m, r, nested";

  @Test
  void whatTheSinkWritesReadsBackEqual() {
    TableEnvironment env = Sql.batch();
    exec(
        env,
        "CREATE TABLE t ("
            + COLUMNS
            + ") WITH ('connector' = 'lance', 'path' = '"
            + dir.resolve("types")
            + "', 'vector-columns' = 'vec:3')");
    exec(
        env,
        "CREATE TEMPORARY VIEW src AS SELECT * FROM (VALUES (TRUE, CAST(-128 AS TINYINT),"
            + " CAST(32767 AS SMALLINT), -5, 9223372036854775807, CAST(1.5 AS FLOAT),"
            + " CAST(-2.25E300 AS DOUBLE), CAST('1234567890123456789012345678.0123456789' AS"
            + " DECIMAL(38, 10)), CAST(-999.99 AS DECIMAL(5, 2)), CAST('ab' AS CHAR(3)),"
            + " CAST('it''s' AS VARCHAR(10)), 'ünï\\code', CAST(X'0102' AS BINARY(2)), X'',"
            + " DATE '1969-07-20', TIME '23:59:59.999', TIMESTAMP '1900-01-01 00:00:01',"
            + " TIMESTAMP '2024-02-29 12:00:00.123', TIMESTAMP '2024-02-29 12:00:00.123456',"
            + " TIMESTAMP '2262-04-11 23:47:16.854775807',"
            + " CAST(TIMESTAMP '2024-01-01 00:00:00.000001' AS TIMESTAMP_LTZ(6)),"
            + " ARRAY[1, CAST(NULL AS INT), 3], ARRAY[CAST(0.5 AS FLOAT), -1, 2],"
            + " MAP['k', 1, 'n', CAST(NULL AS INT)], ROW(7, 'x'), ARRAY[ROW(CAST(0.1 AS DOUBLE))]),"
            + " (CAST(NULL AS BOOLEAN), CAST(NULL AS TINYINT), CAST(NULL AS SMALLINT),"
            + " CAST(NULL AS INT), CAST(NULL AS BIGINT), CAST(NULL AS FLOAT), CAST(NULL AS"
            + " DOUBLE), CAST(NULL AS DECIMAL(38, 10)), CAST(NULL AS DECIMAL(5, 2)), CAST(NULL AS"
            + " CHAR(3)), CAST(NULL AS VARCHAR(10)), CAST(NULL AS STRING), CAST(NULL AS"
            + " BINARY(2)), CAST(NULL AS BYTES), CAST(NULL AS DATE), CAST(NULL AS TIME(3)),"
            + " CAST(NULL AS TIMESTAMP(0)), CAST(NULL AS TIMESTAMP(3)), CAST(NULL AS"
            + " TIMESTAMP(6)), CAST(NULL AS TIMESTAMP(9)), CAST(NULL AS TIMESTAMP_LTZ(6)),"
            + " CAST(NULL AS ARRAY<INT>), CAST(NULL AS ARRAY<FLOAT NOT NULL>), CAST(NULL AS"
            + " MAP<STRING, INT>), CAST(NULL AS ROW<a INT, b STRING>), CAST(NULL AS ARRAY<ROW<x"
            + " DOUBLE>>))) AS v("
            + NAMES
            + ")");
    exec(env, "INSERT INTO t SELECT * FROM src");

    List<String> written = queryStrings(env, "SELECT * FROM src");
    assertThat(queryStrings(env, "SELECT * FROM t")).containsExactlyInAnyOrderElementsOf(written);
    assertThat(written)
        .as("the edge values are in what was written (VALUES rows come in no fixed order)")
        .anySatisfy(
            row -> assertThat(row).contains("ünï\\code").contains("2262-04-11T23:47:16.854775807"));
  }

  /**
   * Encodings other writers (pyarrow, pandas categoricals, Spark) produce, read through a catalog:
   * DESCRIBE shows the mapped types and SELECT the values.
   */
  @Test
  void whatOtherWritersProduceReadsThroughTheCatalog() throws Exception {
    Path warehouse = dir.resolve("lake");
    writeOtherWritersTable(warehouse.resolve("default").resolve("other.lance").toString());
    TableEnvironment env = Sql.batch();
    exec(env, "CREATE CATALOG lake WITH ('type' = 'lance', 'warehouse' = '" + warehouse + "')");
    exec(env, "USE CATALOG lake");

    assertThat(queryStrings(env, "DESCRIBE other"))
        .extracting(row -> row.replaceAll(", (true|false), .*", ""))
        .containsExactly(
            "+I[colour, STRING",
            "+I[big, STRING",
            "+I[blob, BYTES",
            "+I[fixed, BINARY(2)",
            "+I[u8, SMALLINT",
            "+I[u16, INT",
            "+I[u32, BIGINT",
            "+I[u64, DECIMAL(20, 0)",
            "+I[half, FLOAT",
            "+I[d64, DATE",
            "+I[t_s, TIME(0)",
            "+I[t_ns, TIME(9)",
            "+I[ts_s, TIMESTAMP(0)",
            "+I[ts_ns, TIMESTAMP(9)",
            "+I[ts_ny, TIMESTAMP_LTZ(6)",
            "+I[vec, ARRAY<FLOAT NOT NULL>");
    env.getConfig().set("table.local-time-zone", "UTC");
    assertThat(queryStrings(env, "SELECT * FROM other"))
        .containsExactlyInAnyOrder(
            "+I[grün, big0, [0], [0, 1], 255, 65535, 4294967295, 18446744073709551615, 0.0,"
                + " 1970-01-01, 01:00, 01:00:00.001, 1970-01-01T00:00, 1970-01-01T00:00,"
                + " 2023-11-14T22:13:20Z, [0.0, 1.0, 2.0]]",
            "+I[red, big1, [1], [1, 1], 1, 1, 1, 1, 0.5, 1970-01-02, 01:00:01, 01:00:00.001,"
                + " 1970-01-01T00:00:01, 1970-01-01T00:00:00.000000001, 2023-11-14T22:13:21Z,"
                + " [1.0, 2.0, 3.0]]",
            "+I[null, null, null, null, null, null, null, null, null, null, null, null, null,"
                + " null, null, null]");
    assertThat(queryStrings(env, "SELECT big FROM other WHERE colour = 'red'"))
        .containsExactly("+I[big1]");
  }

  /** Three rows, the last all nulls, written by Lance from an Arrow stream with a dictionary. */
  private static void writeOtherWritersTable(String uri) throws Exception {
    DictionaryEncoding encoding = new DictionaryEncoding(1, false, new ArrowType.Int(32, true));
    Field item =
        new Field(
            "item",
            FieldType.notNullable(new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)),
            null);
    Schema schema =
        new Schema(
            List.of(
                new Field(
                    "colour", new FieldType(true, new ArrowType.Int(32, true), encoding), null),
                Field.nullable("big", ArrowType.LargeUtf8.INSTANCE),
                Field.nullable("blob", ArrowType.LargeBinary.INSTANCE),
                Field.nullable("fixed", new ArrowType.FixedSizeBinary(2)),
                Field.nullable("u8", new ArrowType.Int(8, false)),
                Field.nullable("u16", new ArrowType.Int(16, false)),
                Field.nullable("u32", new ArrowType.Int(32, false)),
                Field.nullable("u64", new ArrowType.Int(64, false)),
                Field.nullable("half", new ArrowType.FloatingPoint(FloatingPointPrecision.HALF)),
                Field.nullable("d64", new ArrowType.Date(DateUnit.MILLISECOND)),
                Field.nullable("t_s", new ArrowType.Time(TimeUnit.SECOND, 32)),
                Field.nullable("t_ns", new ArrowType.Time(TimeUnit.NANOSECOND, 64)),
                Field.nullable("ts_s", new ArrowType.Timestamp(TimeUnit.SECOND, null)),
                Field.nullable("ts_ns", new ArrowType.Timestamp(TimeUnit.NANOSECOND, null)),
                Field.nullable(
                    "ts_ny", new ArrowType.Timestamp(TimeUnit.MICROSECOND, "America/New_York")),
                new Field(
                    "vec", FieldType.nullable(new ArrowType.FixedSizeList(3)), List.of(item))));
    ByteArrayOutputStream stream = new ByteArrayOutputStream();
    try (BufferAllocator allocator = new RootAllocator();
        VarCharVector colours = new VarCharVector("colours", allocator);
        VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator)) {
      colours.allocateNew();
      colours.setSafe(0, "red".getBytes(StandardCharsets.UTF_8));
      colours.setSafe(1, "grün".getBytes(StandardCharsets.UTF_8));
      colours.setValueCount(2);
      DictionaryProvider.MapDictionaryProvider dictionaries =
          new DictionaryProvider.MapDictionaryProvider(new Dictionary(colours, encoding));
      root.allocateNew();
      for (int i = 0; i < 2; i++) {
        ((IntVector) root.getVector("colour")).setSafe(i, 1 - i);
        ((LargeVarCharVector) root.getVector("big"))
            .setSafe(i, ("big" + i).getBytes(StandardCharsets.UTF_8));
        ((LargeVarBinaryVector) root.getVector("blob")).setSafe(i, new byte[] {(byte) i});
        ((FixedSizeBinaryVector) root.getVector("fixed")).setSafe(i, new byte[] {(byte) i, 1});
        ((UInt1Vector) root.getVector("u8")).setSafe(i, i == 0 ? 255 : 1);
        ((UInt2Vector) root.getVector("u16")).setSafe(i, i == 0 ? 65_535 : 1);
        ((UInt4Vector) root.getVector("u32")).setSafe(i, i == 0 ? -1 : 1);
        ((UInt8Vector) root.getVector("u64")).setSafe(i, i == 0 ? -1L : 1L);
        ((Float2Vector) root.getVector("half")).setSafeWithPossibleTruncate(i, i * 0.5f);
        ((DateMilliVector) root.getVector("d64")).setSafe(i, i * 86_400_000L);
        ((TimeSecVector) root.getVector("t_s")).setSafe(i, 3_600 + i);
        ((TimeNanoVector) root.getVector("t_ns")).setSafe(i, 3_600_001_000_001L);
        ((TimeStampSecVector) root.getVector("ts_s")).setSafe(i, i);
        ((TimeStampNanoVector) root.getVector("ts_ns")).setSafe(i, i);
        ((TimeStampMicroTZVector) root.getVector("ts_ny"))
            .setSafe(i, 1_700_000_000_000_000L + i * 1_000_000L);
        FixedSizeListVector vec = (FixedSizeListVector) root.getVector("vec");
        vec.setNotNull(i);
        for (int j = 0; j < 3; j++) {
          ((Float4Vector) vec.getDataVector()).setSafe(i * 3 + j, i + j);
        }
      }
      for (Field field : schema.getFields()) {
        root.getVector(field.getName()).setNull(2);
      }
      for (int j = 6; j < 9; j++) { // Lance wants the slots under a null vector filled
        ((Float4Vector) ((FixedSizeListVector) root.getVector("vec")).getDataVector())
            .setSafe(j, 0);
      }
      root.setRowCount(3);
      try (ArrowStreamWriter writer = new ArrowStreamWriter(root, dictionaries, stream)) {
        writer.start();
        writer.writeBatch();
        writer.end();
      }
    }
    try (BufferAllocator allocator = new RootAllocator();
        ArrowStreamReader reader =
            new ArrowStreamReader(new ByteArrayInputStream(stream.toByteArray()), allocator);
        Dataset ignored =
            Dataset.write()
                .allocator(allocator)
                .reader(reader)
                .uri(uri)
                .mode(WriteParams.WriteMode.CREATE)
                .execute()) {
      // written as Lance stores these encodings
    }
  }
}
