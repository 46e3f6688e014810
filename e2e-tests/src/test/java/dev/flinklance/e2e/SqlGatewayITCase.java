package dev.flinklance.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flinklance.e2e.cluster.ConnectorJars;
import dev.flinklance.e2e.cluster.FlinkClusterExtension;
import dev.flinklance.e2e.cluster.SqlGatewayClient;
import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.SqlStatements;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Flink SQL through the SQL gateway on a standalone cluster of separate processes, with the
 * connector jar in the cluster's lib/ (as SQL users deploy it): 'connector' = 'lance' tables, the
 * Lance catalog, compaction, and docker/sql/walkthrough.sql unchanged.
 */
@Timeout(value = 5, unit = java.util.concurrent.TimeUnit.MINUTES)
class SqlGatewayITCase {
  private static final Duration STATEMENT_TIMEOUT = Duration.ofMinutes(3);

  @RegisterExtension
  static final FlinkClusterExtension CLUSTER =
      new FlinkClusterExtension("sql", () -> List.of(ConnectorJars.connectorJar()), Map.of());

  private static SqlGatewayClient gateway;

  @BeforeAll
  static void startGateway() throws Exception {
    gateway = CLUSTER.cluster().startSqlGateway();
  }

  /** The connector jar in lib/ (its unrelocated Arrow, Jackson, Netty) leaves Flink SQL working. */
  @Test
  void flinkSqlRunsWithTheConnectorInLib() throws Exception {
    try (SqlGatewayClient.Session sql = gateway.openSession(Map.of())) {
      run(sql, "SET 'execution.runtime-mode' = 'batch'");
      run(
          sql,
          "CREATE TEMPORARY TABLE gen (id BIGINT NOT NULL) WITH ('connector' = 'datagen',"
              + " 'number-of-rows' = '100', 'fields.id.kind' = 'sequence', 'fields.id.start' = '1',"
              + " 'fields.id.end' = '100')");
      assertThat(run(sql, "SELECT COUNT(*), SUM(id) FROM gen"))
          .isEqualTo(List.of(List.of(100L, 5050L)));
    }
  }

  @Test
  void insertFromDatagenAndSelectBack() throws Exception {
    Path table = CLUSTER.dataDir().resolve("events.lance");
    try (SqlGatewayClient.Session sql = gateway.openSession(Map.of())) {
      run(sql, "SET 'execution.runtime-mode' = 'streaming'");
      run(sql, "SET 'execution.checkpointing.interval' = '500 ms'");
      run(sql, "SET 'table.dml-sync' = 'true'");
      run(
          sql,
          "CREATE TABLE events (id BIGINT NOT NULL, name STRING) WITH ("
              + "'connector' = 'lance', 'path' = '"
              + table
              + "')");
      // ~20 s of input, so that checkpoints (every 500 ms, seconds apart on a busy machine) commit
      // while it flows
      run(
          sql,
          "CREATE TEMPORARY TABLE gen (id BIGINT NOT NULL, name STRING) WITH ("
              + "'connector' = 'datagen', 'number-of-rows' = '6000', 'rows-per-second' = '300',"
              + " 'fields.id.kind' = 'sequence', 'fields.id.start' = '0', 'fields.id.end' = '5999')");
      run(sql, "INSERT INTO events SELECT id, CONCAT('name-', CAST(id AS STRING)) FROM gen");

      assertThat(LanceTestTables.readLongs(table.toString(), "id").stream().sorted().toList())
          .isEqualTo(LongStream.range(0, 6000).boxed().toList());
      assertThat(
              LanceTestTables.sinkCommits(table.toString()).stream()
                  .map(LanceTestTables.Commit::checkpointId)
                  .toList())
          .as("checkpoint ids of the commits")
          .hasSizeGreaterThan(1)
          .isSorted()
          .doesNotHaveDuplicates();

      run(sql, "SET 'execution.runtime-mode' = 'batch'");
      List<List<Object>> rows = run(sql, "SELECT id, name FROM events WHERE id < 3 ORDER BY id");
      assertThat(rows)
          .isEqualTo(List.of(List.of(0L, "name-0"), List.of(1L, "name-1"), List.of(2L, "name-2")));
    }
  }

  /**
   * docker/sql/walkthrough.sql as the docker SQL client runs it: the Lance catalog, DDL, bounded
   * INSERTs, reads with pushdown and {@code CALL lake.sys.compact}, which must merge the two
   * inserts' fragments and leave the rows as they were.
   */
  @Test
  void walkthroughRunsUnchanged() throws Exception {
    Path warehouse = CLUSTER.dataDir().resolve("warehouse");
    String events = warehouse.resolve("demo/events.lance").toString();
    Path script =
        Path.of(System.getProperty("repo.root", "..")).resolve("docker/sql/walkthrough.sql");
    Map<String, List<List<Object>>> results = new LinkedHashMap<>();
    List<List<Object>> counts = new ArrayList<>();
    List<Integer> fragments = new ArrayList<>();
    try (SqlGatewayClient.Session sql = gateway.openSession(Map.of())) {
      // this cluster's environment in place of docker/sql/init.sql
      run(sql, "CREATE CATALOG lake WITH ('type' = 'lance', 'warehouse' = '" + warehouse + "')");
      for (SqlStatements.Statement each : SqlStatements.split(Files.readString(script))) {
        String statement = each.sql();
        boolean compaction = statement.startsWith("CALL ");
        if (compaction) {
          fragments.add(LanceTestTables.fragmentCount(events));
        }
        List<List<Object>> result = run(sql, statement);
        results.put(statement, result);
        if (compaction) {
          fragments.add(LanceTestTables.fragmentCount(events));
        }
        if (statement.startsWith("SELECT COUNT(*)")) {
          counts.addAll(result);
        }
      }
    }
    assertThat(counts)
        .as("row count, first and last id before and after compaction")
        .containsExactly(List.of(2000L, 1L, 2000L), List.of(2000L, 1L, 2000L));
    assertThat(
            results.entrySet().stream()
                .filter(e -> e.getKey().contains("BETWEEN 998 AND 1002"))
                .flatMap(e -> e.getValue().stream())
                .map(row -> ((Number) row.get(0)).longValue())
                .toList())
        .isEqualTo(List.of(998L, 999L, 1000L, 1001L, 1002L));

    assertThat(fragments).as("fragments before and after CALL lake.sys.compact").hasSize(2);
    int before = fragments.get(0);
    int after = fragments.get(1);
    assertThat(before).isGreaterThanOrEqualTo(2);
    assertThat(after).isLessThan(before);
    List<List<Object>> summary =
        results.entrySet().stream()
            .filter(e -> e.getKey().startsWith("CALL "))
            .findFirst()
            .orElseThrow()
            .getValue();
    assertThat(summary).as("what the compaction did").hasSize(1);
    // outcome, table_version, fragments_before, fragments_after
    assertThat(summary.get(0).subList(0, 4))
        .isEqualTo(
            List.of(
                "COMMITTED", LanceTestTables.latestVersion(events), (long) before, (long) after));
    assertThat(LanceTestTables.readLongs(events, "id").stream().sorted().toList())
        .isEqualTo(LongStream.rangeClosed(1, 2000).boxed().toList());
    // the catalog's own registry of databases aside, the walkthrough's table is the only one
    try (Stream<Path> files = Files.walk(warehouse.resolve("demo"))) {
      assertThat(files.filter(p -> p.getFileName().toString().equals("_versions")).toList())
          .as("Lance tables in the database demo")
          .containsExactly(Path.of(events, "_versions"));
    }
  }

  private static List<List<Object>> run(SqlGatewayClient.Session sql, String statement)
      throws InterruptedException {
    return sql.execute(statement, STATEMENT_TIMEOUT);
  }
}
