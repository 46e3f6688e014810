package dev.flinklance.table.it;

import static dev.flinklance.table.testing.Sql.exec;
import static org.assertj.core.api.Assertions.assertThat;

import dev.flinklance.table.testing.Sql;
import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.TestClusters;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A batch SQL insert into a PRIMARY KEY table keeps, for every key, the row the query delivered
 * last: {@code INSERT INTO pk SELECT ... ORDER BY v} leaves each key with its greatest {@code v}.
 */
class UpsertBatchSqlITCase {
  private static final int ROWS = 20_000;
  private static final int KEYS = 300;

  @RegisterExtension static final MiniClusterExtension CLUSTER = TestClusters.withoutRestarts();

  @TempDir Path dir;

  @Test
  void theLastRowOfEveryKeyInTheQuerysOrderWins() {
    String path = dir.resolve("pk").toString();
    TableEnvironment env = Sql.batch();
    exec(
        env,
        "CREATE TEMPORARY TABLE src (v BIGINT) WITH ('connector' = 'datagen',"
            + " 'fields.v.kind' = 'sequence', 'fields.v.start' = '1', 'fields.v.end' = '"
            + ROWS
            + "', 'number-of-rows' = '"
            + ROWS
            + "')");
    exec(
        env,
        "CREATE TABLE pk (id BIGINT, v BIGINT, name STRING, PRIMARY KEY (id) NOT ENFORCED)"
            + " WITH ('connector' = 'lance', 'path' = '"
            + path
            + "')");
    exec(
        env,
        "INSERT INTO pk SELECT v % "
            + KEYS
            + ", v, CONCAT('row-', CAST(v AS STRING)) FROM src ORDER BY v");

    Map<Long, List<Object>> expected = new TreeMap<>();
    for (long v = 1; v <= ROWS; v++) {
      expected.put(v % KEYS, List.of(v % KEYS, v, "row-" + v));
    }
    Map<Long, List<Object>> table = new TreeMap<>();
    for (List<Object> row : LanceTestTables.readColumns(path, List.of("id", "v", "name"))) {
      List<Object> values = new ArrayList<>(row);
      values.set(2, row.get(2).toString());
      assertThat(table.put((Long) row.get(0), values)).as("one row per key").isNull();
    }
    assertThat(table).isEqualTo(expected);
  }
}
