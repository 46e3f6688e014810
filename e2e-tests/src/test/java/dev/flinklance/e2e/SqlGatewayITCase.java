package dev.flinklance.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flinklance.e2e.cluster.ConnectorJars;
import dev.flinklance.e2e.cluster.FlinkClusterExtension;
import dev.flinklance.e2e.cluster.SqlGatewayClient;
import dev.flinklance.e2e.cluster.SqlScript;
import dev.flinklance.testing.LanceTestTables;
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
import org.junit.jupiter.api.condition.EnabledIf;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Flink SQL through the SQL gateway on a standalone cluster of separate processes, with the
 * connector jar in the cluster's lib/ (as SQL users deploy it): 'connector' = 'lance' tables, the
 * Lance catalog, compaction, and docker/sql/walkthrough.sql unchanged.
 */
@Timeout(value = 5, unit = java.util.concurrent.TimeUnit.MINUTES)
class SqlGatewayITCase {
  private static final Duration STATEMENT_TIMEOUT = Duration.ofMinutes(3);
  private static final String NOT_BUNDLED =
      "flink-lance-table is not in the connector jar yet (a dependency of"
          + " flink-sql-connector-lance once it lands)";

  @RegisterExtension
  static final FlinkClusterExtension CLUSTER =
      new FlinkClusterExtension("sql", () -> List.of(ConnectorJars.connectorJar()), Map.of());

  private static SqlGatewayClient gateway;

  static boolean sqlConnectorBundled() {
    return ConnectorJars.bundles("META-INF/services/org.apache.flink.table.factories.Factory");
  }

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
  @EnabledIf(value = "sqlConnectorBundled", disabledReason = NOT_BUNDLED)
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
      run(
          sql,
          "CREATE TEMPORARY TABLE gen (id BIGINT NOT NULL, name STRING) WITH ("
              + "'connector' = 'datagen', 'number-of-rows' = '5000', 'rows-per-second' = '2500',"
              + " 'fields.id.kind' = 'sequence', 'fields.id.start' = '0', 'fields.id.end' = '4999')");
      run(sql, "INSERT INTO events SELECT id, CONCAT('name-', CAST(id AS STRING)) FROM gen");

      assertThat(LanceTestTables.readLongs(table.toString(), "id").stream().sorted().toList())
          .isEqualTo(LongStream.range(0, 5000).boxed().toList());
      assertThat(LanceTestTables.sinkCommits(table.toString())).hasSizeGreaterThan(1);

      run(sql, "SET 'execution.runtime-mode' = 'batch'");
      List<List<Object>> rows = run(sql, "SELECT id, name FROM events WHERE id < 3 ORDER BY id");
      assertThat(rows)
          .isEqualTo(List.of(List.of(0L, "name-0"), List.of(1L, "name-1"), List.of(2L, "name-2")));
    }
  }

  @Test
  @EnabledIf(value = "sqlConnectorBundled", disabledReason = NOT_BUNDLED)
  void walkthroughRunsUnchanged() throws Exception {
    Path warehouse = CLUSTER.dataDir().resolve("warehouse");
    Path script =
        Path.of(System.getProperty("repo.root", "..")).resolve("docker/sql/walkthrough.sql");
    Map<String, List<List<Object>>> results = new LinkedHashMap<>();
    List<List<Object>> counts = new ArrayList<>();
    try (SqlGatewayClient.Session sql = gateway.openSession(Map.of())) {
      // this cluster's environment in place of docker/sql/init.sql
      run(sql, "CREATE CATALOG lake WITH ('type' = 'lance', 'warehouse' = '" + warehouse + "')");
      for (String statement : SqlScript.statements(script)) {
        List<List<Object>> result = run(sql, statement);
        results.put(statement, result);
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
    assertThat(results.entrySet())
        .filteredOn(e -> e.getKey().startsWith("CALL "))
        .singleElement()
        .satisfies(e -> assertThat(e.getValue()).as("what the compaction did").hasSize(1));
    try (Stream<Path> files = Files.walk(warehouse)) {
      assertThat(files.filter(p -> p.getFileName().toString().equals("_versions")).count())
          .as("Lance tables in the warehouse")
          .isEqualTo(1);
    }
  }

  private static List<List<Object>> run(SqlGatewayClient.Session sql, String statement)
      throws InterruptedException {
    return sql.execute(statement, STATEMENT_TIMEOUT);
  }
}
