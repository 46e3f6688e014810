package dev.flinklance.table.it;

import static dev.flinklance.table.testing.Sql.exec;
import static dev.flinklance.table.testing.Sql.query;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flinklance.table.testing.LanceDbNode;
import dev.flinklance.table.testing.Sql;
import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.TestClusters;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Tables are read exactly across Lance implementations: what the sink writes (Lance's default file
 * format, and 2.2 where compressed or with a MAP column) reads in the LanceDB Node SDK row for row,
 * and a table the SDK made (its own default format, an append, a deletion file) reads exactly in
 * Flink.
 */
class LanceDbInteropITCase {
  @RegisterExtension static final MiniClusterExtension CLUSTER = TestClusters.withoutRestarts();

  private static final int ROWS = 3_000;
  private static final long START_MILLIS = 1_767_225_600_000L; // 2026-01-01T00:00:00Z

  @TempDir Path dir;

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "plain|2.1|",
        "zstd|2.2|, 'sink.compression' = 'zstd'",
        "lz4 with a zstd column|2.2|, 'sink.compression' = 'lz4', 'sink.compression.columns' ="
            + " 'name:zstd'"
      })
  void whatTheSinkWritesReadsExactlyInLanceDb(String name, String format, String options)
      throws Exception {
    String table = "events_" + name.replaceAll("\\W", "_");
    Path uri = dir.resolve(table + ".lance");
    TableEnvironment env = Sql.batch();
    exec(
        env,
        "CREATE TABLE gen (id BIGINT NOT NULL) WITH ('connector' = 'datagen', 'number-of-rows' = '"
            + ROWS
            + "', 'fields.id.kind' = 'sequence', 'fields.id.start' = '0', 'fields.id.end' = '"
            + (ROWS - 1)
            + "')");
    exec(
        env,
        "CREATE TABLE t (id BIGINT NOT NULL, name STRING, score DOUBLE, flag BOOLEAN, ts"
            + " TIMESTAMP(3), tags ARRAY<STRING>, point ROW<x INT, label STRING>, vec"
            + " ARRAY<FLOAT NOT NULL>) WITH ('connector' = 'lance', 'path' = '"
            + uri
            + "', 'vector-columns' = 'vec:4'"
            + (options == null ? "" : options)
            + ")");
    exec(
        env,
        "INSERT INTO t SELECT id, CASE WHEN MOD(id, 5) = 0 THEN CAST(NULL AS STRING) ELSE"
            + " CONCAT('näme-', CAST(id AS STRING), '-😀') END, CASE WHEN MOD(id, 7) = 0 THEN"
            + " CAST(NULL AS DOUBLE) ELSE CAST(id AS DOUBLE) * 0.25 END, MOD(id, 2) = 0,"
            + " CAST(TIMESTAMPADD(SECOND, CAST(id AS INT), TIMESTAMP '2026-01-01 00:00:00') AS"
            + " TIMESTAMP(3)), CASE WHEN MOD(id, 3) = 0 THEN CAST(NULL AS ARRAY<STRING>) ELSE"
            + " ARRAY[CONCAT('t', CAST(MOD(id, 4) AS STRING)), 'ü'] END, ROW(CAST(id AS INT),"
            + " CONCAT('p', CAST(MOD(id, 11) AS STRING))), ARRAY[CAST(id AS FLOAT), CAST(id AS"
            + " FLOAT) + CAST(0.5 AS FLOAT), -CAST(id AS FLOAT), CAST(0.25 AS FLOAT)] FROM gen");
    assertThat(LanceTestTables.fileFormat(uri.toString())).isEqualTo(format);

    JsonNode read = LanceDbNode.read(dir, table);
    assertThat(read.get("fields").get("vec").asText()).isEqualTo("FixedSizeList[4]<Float32>");
    assertThat(read.get("fields").get("ts").asText()).isEqualTo("Timestamp<MILLISECOND>");
    List<Object> rows = new ArrayList<>();
    read.get("rows").forEach(row -> rows.add(normal(row)));
    rows.sort((a, b) -> ((BigDecimal) id(a)).compareTo((BigDecimal) id(b)));
    assertThat(rows).hasSize(ROWS);
    assertThat(rows)
        .isEqualTo(LongStream.range(0, ROWS).mapToObj(LanceDbInteropITCase::expected).toList());
  }

  @Test
  void aMapColumnReadsExactlyInLanceDb() throws Exception {
    Path uri = dir.resolve("attrs.lance");
    TableEnvironment env = Sql.batch();
    exec(
        env,
        "CREATE TABLE t (id BIGINT NOT NULL, attrs MAP<STRING, INT>) WITH ('connector' = 'lance',"
            + " 'path' = '"
            + uri
            + "')");
    exec(
        env,
        "INSERT INTO t VALUES (1, MAP['a', 1, 'ü', 2]), (2, CAST(NULL AS MAP<STRING, INT>)), (3,"
            + " MAP['z', CAST(NULL AS INT)])");
    assertThat(LanceTestTables.fileFormat(uri.toString())).isEqualTo("2.2");

    List<Object> rows = new ArrayList<>();
    LanceDbNode.read(dir, "attrs").get("rows").forEach(row -> rows.add(normal(row)));
    Map<String, Object> both = new LinkedHashMap<>();
    both.put("a", BigDecimal.ONE);
    both.put("ü", BigDecimal.valueOf(2));
    Map<String, Object> nullValue = new HashMap<>();
    nullValue.put("z", null);
    assertThat(rows)
        .containsExactlyInAnyOrder(
            row("id", num(1), "attrs", both),
            row("id", num(2), "attrs", null),
            row("id", num(3), "attrs", nullValue));
  }

  @Test
  void aTableLanceDbMadeReadsExactlyInFlink() throws Exception {
    LanceDbNode.write(dir, "made");
    TableEnvironment env = Sql.batch();
    exec(
        env,
        "CREATE TABLE made (id BIGINT NOT NULL, name STRING, score DOUBLE, tags ARRAY<STRING>, vec"
            + " ARRAY<FLOAT>, ts TIMESTAMP(3)) WITH ('connector' = 'lance', 'path' = '"
            + dir.resolve("made.lance")
            + "')");
    List<Row> expected = new ArrayList<>();
    for (int i = 0; i < 150; i++) {
      if (i % 10 != 3) { // interop.mjs deletes these after its append
        expected.add(
            Row.of(
                (long) i,
                i % 5 == 0 ? null : "näme-" + i,
                i % 7 == 0 ? null : i * 0.25,
                i % 3 == 0 ? null : new String[] {"t" + (i % 4), "ü"},
                new Float[] {(float) i, i + 0.5f, -(float) i, 0.25f},
                LocalDateTime.of(2026, 1, 1, 0, 0).plusSeconds(i)));
      }
    }
    assertThat(query(env, "SELECT * FROM made")).containsExactlyInAnyOrderElementsOf(expected);
    assertThat(query(env, "SELECT COUNT(*) FROM made WHERE score > 10"))
        .containsExactly(Row.of(expected.stream().filter(r -> score(r) > 10).count()));
  }

  @Test
  void aTableTheCatalogEvolvedReadsExactlyInLanceDb() throws Exception {
    TableEnvironment env = Sql.batch();
    exec(env, "CREATE CATALOG wh WITH ('type' = 'lance', 'warehouse' = 'file://" + dir + "')");
    exec(env, "USE CATALOG wh");
    exec(env, "CREATE TABLE evolved (id BIGINT, name STRING, score INT, note STRING)");
    exec(env, "INSERT INTO evolved VALUES (1, 'a', 10, 'x'), (2, 'b', 20, 'y')");
    exec(env, "ALTER TABLE evolved ADD email STRING COMMENT 'mail'");
    exec(env, "INSERT INTO evolved VALUES (3, 'c', 30, 'z', 'c@x')");
    exec(env, "ALTER TABLE evolved RENAME score TO points");
    exec(env, "ALTER TABLE evolved DROP note");
    // written after the drop: the data file carries the table's field ids, not positions
    exec(env, "INSERT INTO evolved VALUES (4, 'd', 40, 'd@x')");

    JsonNode read = LanceDbNode.read(dir.resolve("default"), "evolved");
    assertThat(read.get("fields").fieldNames())
        .toIterable()
        .containsExactly("id", "name", "points", "email");
    List<Object> rows = new ArrayList<>();
    read.get("rows").forEach(row -> rows.add(normal(row)));
    assertThat(rows)
        .containsExactlyInAnyOrder(
            row("id", num(1), "name", "a", "points", num(10), "email", null),
            row("id", num(2), "name", "b", "points", num(20), "email", null),
            row("id", num(3), "name", "c", "points", num(30), "email", "c@x"),
            row("id", num(4), "name", "d", "points", num(40), "email", "d@x"));
  }

  @Test
  void aTableLanceDbEvolvedReadsAndTakesRowsInFlink() throws Exception {
    LanceDbNode.write(dir, "changed");
    LanceDbNode.widen(dir, "changed");
    TableEnvironment env = Sql.batch();
    exec(
        env,
        "CREATE TABLE changed (id BIGINT NOT NULL, label STRING, score DOUBLE, tags"
            + " ARRAY<STRING>, vec ARRAY<FLOAT>, ts TIMESTAMP(3), extra STRING) WITH ('connector'"
            + " = 'lance', 'path' = '"
            + dir.resolve("changed.lance")
            + "')");
    exec(
        env,
        "INSERT INTO changed VALUES (1000, 'new', 1.5, ARRAY['n'], ARRAY[CAST(1 AS FLOAT),"
            + " CAST(2 AS FLOAT), CAST(3 AS FLOAT), CAST(4 AS FLOAT)], TIMESTAMP '2026-01-02"
            + " 00:00:00', 'more')");
    assertThat(query(env, "SELECT id, label, extra FROM changed WHERE id IN (1, 5, 1000)"))
        .containsExactlyInAnyOrder(
            Row.of(1L, "näme-1", null), Row.of(5L, null, null), Row.of(1000L, "new", "more"));
    assertThat(query(env, "SELECT COUNT(*) FROM changed")).containsExactly(Row.of(136L));

    LanceDbNode.narrow(dir, "changed");
    exec(
        env,
        "CREATE TEMPORARY TABLE narrowed (id BIGINT NOT NULL, label STRING, extra STRING) WITH"
            + " ('connector' = 'lance', 'path' = '"
            + dir.resolve("changed.lance")
            + "')");
    exec(env, "INSERT INTO narrowed VALUES (2000, 'after', 'drop')");
    assertThat(query(env, "SELECT * FROM narrowed WHERE id IN (1, 5, 1000, 2000)"))
        .containsExactlyInAnyOrder(
            Row.of(1L, "näme-1", null),
            Row.of(5L, null, null),
            Row.of(1000L, "new", "more"),
            Row.of(2000L, "after", "drop"));
  }

  private static double score(Row row) {
    Double score = (Double) row.getField(2);
    return score == null ? Double.NaN : score;
  }

  /** The row the INSERT of {@link #whatTheSinkWritesReadsExactlyInLanceDb} makes of {@code id}. */
  private static Map<String, Object> expected(long id) {
    Map<String, Object> point = row("x", num(id), "label", "p" + id % 11);
    return row(
        "id",
        num(id),
        "name",
        id % 5 == 0 ? null : "näme-" + id + "-😀",
        "score",
        id % 7 == 0 ? null : num(id * 0.25),
        "flag",
        id % 2 == 0,
        "ts",
        num(START_MILLIS + id * 1000),
        "tags",
        id % 3 == 0 ? null : List.of("t" + id % 4, "ü"),
        "point",
        point,
        "vec",
        Arrays.asList(num(id), num(id + 0.5), num(-id), num(0.25)));
  }

  private static Map<String, Object> row(Object... namesAndValues) {
    Map<String, Object> row = new LinkedHashMap<>();
    for (int i = 0; i < namesAndValues.length; i += 2) {
      row.put((String) namesAndValues[i], namesAndValues[i + 1]);
    }
    return row;
  }

  private static Object id(Object row) {
    return ((Map<?, ?>) row).get("id");
  }

  private static BigDecimal num(double value) {
    return new BigDecimal(Double.toString(value)).stripTrailingZeros();
  }

  /** JSON as plain Java values, every number a BigDecimal without trailing zeros. */
  private static Object normal(JsonNode node) {
    if (node.isNull()) {
      return null;
    }
    if (node.isNumber()) {
      return new BigDecimal(node.asText()).stripTrailingZeros();
    }
    if (node.isBoolean()) {
      return node.booleanValue();
    }
    if (node.isTextual()) {
      return node.textValue();
    }
    if (node.isArray()) {
      List<Object> list = new ArrayList<>();
      node.forEach(element -> list.add(normal(element)));
      return list;
    }
    Map<String, Object> fields = new LinkedHashMap<>();
    node.fields().forEachRemaining(field -> fields.put(field.getKey(), normal(field.getValue())));
    return fields;
  }
}
