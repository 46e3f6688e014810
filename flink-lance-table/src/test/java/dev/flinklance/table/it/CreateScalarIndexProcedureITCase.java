package dev.flinklance.table.it;

import static dev.flinklance.table.testing.Sql.exec;
import static dev.flinklance.table.testing.Sql.queryStrings;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flinklance.index.ScalarIndex;
import dev.flinklance.table.testing.Sql;
import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.LogCapture;
import dev.flinklance.testing.TestClusters;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.lance.Dataset;

/**
 * {@code CALL lake.sys.create_scalar_index('db.t', 'column')}: builds the BTree index lookups by
 * the column probe, brings it up to date with rows appended since, and refuses a column it cannot
 * serve, naming it; the table is unchanged then.
 */
class CreateScalarIndexProcedureITCase {
  @RegisterExtension static final MiniClusterExtension CLUSTER = TestClusters.withoutRestarts();

  @TempDir Path dir;

  private TableEnvironment session(TableEnvironment env) {
    exec(
        env,
        "CREATE CATALOG lake WITH ('type' = 'lance', 'warehouse' = 'file://"
            + dir.resolve("lake")
            + "')");
    exec(env, "USE CATALOG lake");
    return env;
  }

  private static String values(int from, int to) {
    return IntStream.range(from, to)
        .mapToObj(i -> "(" + i + ", 'n" + i + "', " + i * 0.5 + ")")
        .collect(Collectors.joining(", "));
  }

  @Test
  void buildsTheIndexThenBringsItUpToDateAndLookupsUseIt() throws Exception {
    TableEnvironment env = session(Sql.batch());
    exec(env, "CREATE TABLE users (id BIGINT, name STRING, score DOUBLE)");
    exec(env, "INSERT INTO users VALUES " + values(0, 100));
    String uri = dir.resolve("lake").resolve("default").resolve("users.lance").toString();
    long before = LanceTestTables.latestVersion(uri);

    assertThat(queryStrings(env, "CALL lake.sys.create_scalar_index('default.users', 'id')"))
        .containsExactly("+I[id_key_idx, built, 100, " + (before + 1) + "]");
    assertThat(queryStrings(env, "CALL lake.sys.create_scalar_index('default.users', 'id')"))
        .containsExactly("+I[id_key_idx, unchanged, 100, " + (before + 1) + "]");
    exec(env, "INSERT INTO users VALUES " + values(100, 150));
    assertThat(queryStrings(env, "CALL lake.sys.create_scalar_index('default.users', 'id')"))
        .containsExactly("+I[id_key_idx, updated, 150, " + (before + 3) + "]");
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = Dataset.open(uri, allocator)) {
      assertThat(ScalarIndex.btreesOf(dataset))
          .singleElement()
          .satisfies(index -> assertThat(index.missesFragmentsOf(dataset)).isFalse());
    }

    TableEnvironment streaming = session(Sql.streaming(Duration.ofSeconds(1)));
    exec(
        streaming,
        "CREATE TEMPORARY VIEW clicks AS SELECT user_id, PROCTIME() AS proc_time FROM (VALUES"
            + " (CAST(7 AS BIGINT)), (CAST(149 AS BIGINT)), (CAST(150 AS BIGINT))) AS t(user_id)");
    try (LogCapture logs = LogCapture.start()) {
      assertThat(
              queryStrings(
                  streaming,
                  "SELECT c.user_id, u.name FROM clicks AS c LEFT JOIN users FOR SYSTEM_TIME AS OF"
                      + " c.proc_time AS u ON c.user_id = u.id"))
          .containsExactlyInAnyOrder("+I[7, n7]", "+I[149, n149]", "+I[150, null]");
      assertThat(logs.text()).contains("go through the scalar index(es) id_key_idx; 0 rows");
    }
  }

  @Test
  void aColumnTheIndexCannotServeIsRefusedNamingIt() {
    TableEnvironment env = session(Sql.batch());
    exec(env, "CREATE TABLE users (id BIGINT, name STRING, score DOUBLE)");
    exec(env, "INSERT INTO users VALUES " + values(0, 10));
    String uri = dir.resolve("lake").resolve("default").resolve("users.lance").toString();
    long version = LanceTestTables.latestVersion(uri);

    assertThatThrownBy(
            () -> queryStrings(env, "CALL lake.sys.create_scalar_index('default.users', 'score')"))
        .hasMessageContaining(
            "Lance table 'file://"
                + uri
                + "': column 'score' holds DOUBLE; a scalar index for lookups takes a column of"
                + " the types TINYINT, SMALLINT, INT, BIGINT");
    assertThatThrownBy(
            () -> queryStrings(env, "CALL lake.sys.create_scalar_index('default.users', 'nope')"))
        .hasStackTraceContaining("Column 'nope' does not exist in the table");
    assertThatThrownBy(
            () -> queryStrings(env, "CALL lake.sys.create_scalar_index('default.gone', 'id')"))
        .hasStackTraceContaining("gone");
    assertThat(LanceTestTables.latestVersion(uri)).as("nothing built").isEqualTo(version);
  }
}
