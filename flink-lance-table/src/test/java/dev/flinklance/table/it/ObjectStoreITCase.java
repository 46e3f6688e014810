package dev.flinklance.table.it;

import static dev.flinklance.table.testing.Sql.exec;
import static dev.flinklance.table.testing.Sql.queryStrings;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flinklance.table.testing.Sql;
import dev.flinklance.table.testing.TestCatalog;
import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.S3TestServer;
import dev.flinklance.testing.TestClusters;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.lance.Dataset;
import org.lance.ReadOptions;

/** The SQL connector and every kind of catalog on s3:// (S3Proxy on 127.0.0.1). */
class ObjectStoreITCase {
  @RegisterExtension static final MiniClusterExtension CLUSTER = TestClusters.withoutRestarts();
  @RegisterExtension static final S3TestServer S3 = new S3TestServer();

  private static String storageOptions() {
    Map<String, String> options = S3.storageOptions();
    return options.entrySet().stream()
        .map(e -> String.format(", 'storage.%s' = '%s'", e.getKey(), e.getValue()))
        .collect(Collectors.joining());
  }

  @Test
  void sqlRoundTripWithPushdown() {
    String path = S3.newUri("events");
    TableEnvironment env = Sql.batch();
    exec(
        env,
        "CREATE TABLE events (id BIGINT NOT NULL, name STRING) WITH ('connector' = 'lance',"
            + " 'path' = '"
            + path
            + "'"
            + storageOptions()
            + ")");
    String values =
        IntStream.range(0, 100)
            .mapToObj(i -> "(" + i + ", 'name-" + i + "')")
            .collect(Collectors.joining(", "));
    exec(env, "INSERT INTO events VALUES " + values);

    String select = "SELECT id, name FROM events WHERE id >= 95 AND name LIKE 'name-9%'";
    assertThat(env.explainSql(select)).contains("filter=[and(>=(id, 95)");
    assertThat(queryStrings(env, select))
        .containsExactlyInAnyOrder(
            "+I[95, name-95]",
            "+I[96, name-96]",
            "+I[97, name-97]",
            "+I[98, name-98]",
            "+I[99, name-99]");
    assertThat(queryStrings(env, "SELECT COUNT(*) FROM events")).containsExactly("+I[100]");
  }

  @ParameterizedTest
  @EnumSource(TestCatalog.Kind.class)
  void catalogLifecycle(TestCatalog.Kind kind) throws Exception {
    try (TestCatalog catalog = new TestCatalog(kind, S3.newUri("lake"), S3.storageOptions())) {
      TableEnvironment env = Sql.batch();
      exec(env, catalog.createCatalog("lake"));
      exec(env, "USE CATALOG lake");
      exec(env, "CREATE DATABASE db");
      exec(env, "CREATE TABLE db.t (id BIGINT, v STRING) WITH ('sink.max-rows-per-file' = '10')");
      exec(env, "INSERT INTO db.t VALUES (1, 'one'), (2, 'two')");
      String table = catalog.tableUri("db", "t");
      assertThat(S3.keys(table)).isNotEmpty();

      TableEnvironment second = Sql.batch();
      exec(second, catalog.createCatalog("lake"));
      exec(second, "USE CATALOG lake");
      assertThat(queryStrings(second, "SHOW DATABASES")).containsExactly("+I[db]", "+I[default]");
      assertThat(queryStrings(second, "SHOW TABLES FROM db")).containsExactly("+I[t]");
      assertThat(queryStrings(second, "SHOW CREATE TABLE db.t").get(0))
          .contains("'sink.max-rows-per-file' = '10'")
          .doesNotContain("storage.")
          .doesNotContain(S3TestServer.DEFAULT_SECRET_ACCESS_KEY);
      assertThat(queryStrings(second, "SELECT * FROM db.t WHERE id = 2"))
          .containsExactly("+I[2, two]");

      exec(second, "DROP DATABASE db CASCADE");
      assertThat(queryStrings(env, "SHOW DATABASES")).containsExactly("+I[default]");
      assertThat(S3.keys(table)).isEmpty();
      assertThat(catalog.databaseGone("db")).isTrue();
    }
  }

  /**
   * {@code sys.compact} with the row-lineage spill on s3://; then a commit that fails (Lance reads
   * {@code timeout = '1m 30s'}, the side files' AWS SDK client cannot) ends the call with its
   * cause.
   */
  @ParameterizedTest
  @EnumSource(TestCatalog.Kind.class)
  void compactProcedureSpillsOnS3AndReportsAFailedCommit(TestCatalog.Kind kind) throws Exception {
    try (TestCatalog catalog = new TestCatalog(kind, S3.newUri("compacted"), S3.storageOptions())) {
      TableEnvironment env = Sql.batch();
      exec(env, catalog.createCatalog("lake"));
      exec(env, "USE CATALOG lake");
      exec(env, "CREATE TABLE t (id BIGINT, v STRING) WITH ('stable-row-ids' = 'true')");
      for (int i = 0; i < 3; i++) {
        exec(env, "INSERT INTO t VALUES (" + i + ", 'v" + i + "')");
      }
      String table = catalog.tableUri("default", "t");
      setConfig(
          table,
          Map.of("lance.row_lineage.spill", "true", "lance.row_lineage.inline_max_bytes", "1"));

      assertThat(queryStrings(env, "CALL lake.sys.compact('t')"))
          .singleElement()
          .asString()
          .startsWith("+I[COMMITTED, ")
          .contains(", 3, 1, 3, 1, 3, ");
      assertThat(S3.keys(table)).anyMatch(key -> key.contains("/_rowids-"));

      for (int i = 3; i < 5; i++) {
        exec(env, "INSERT INTO t VALUES (" + i + ", 'v" + i + "')");
      }
      long version = LanceTestTables.latestVersion(table, S3.storageOptions());
      TableEnvironment unreachable = Sql.batch();
      exec(unreachable, catalog.createCatalog("lake", ", 'storage.timeout' = '1m 30s'"));
      assertThatThrownBy(() -> queryStrings(unreachable, "CALL lake.sys.compact('t')"))
          .hasStackTraceContaining(
              "Compaction of Lance table '" + table + "' failed, nothing was committed")
          .hasStackTraceContaining("cannot reach its row-lineage side files");
      assertThat(LanceTestTables.latestVersion(table, S3.storageOptions())).isEqualTo(version);
      assertThat(queryStrings(env, "SELECT id FROM t"))
          .containsExactlyInAnyOrder("+I[0]", "+I[1]", "+I[2]", "+I[3]", "+I[4]");
    }
  }

  private static void setConfig(String table, Map<String, String> config) {
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset =
            Dataset.open()
                .allocator(allocator)
                .uri(table)
                .readOptions(
                    new ReadOptions.Builder().setStorageOptions(S3.storageOptions()).build())
                .build()) {
      dataset.updateConfig(config);
    }
  }
}
