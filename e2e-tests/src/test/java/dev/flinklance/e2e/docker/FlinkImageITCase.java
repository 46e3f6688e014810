package dev.flinklance.e2e.docker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flinklance.e2e.cluster.Await;
import dev.flinklance.e2e.cluster.ConnectorJars;
import dev.flinklance.e2e.cluster.FlinkContainers;
import dev.flinklance.e2e.cluster.FlinkRestClient;
import dev.flinklance.e2e.cluster.SqlGatewayClient;
import dev.flinklance.e2e.job.CheckpointedWriteJob;
import dev.flinklance.testing.LanceTestTables;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.testcontainers.junit.jupiter.Testcontainers;

/**
 * The end-to-end cases of {@code JarUploadITCase} and {@code SqlGatewayITCase} on Flink's official
 * Docker image with the connector jar, as users run it in containers. Skipped when no Docker engine
 * is available (the multi-process cluster tests cover the same capabilities without Docker).
 */
@Testcontainers(disabledWithoutDocker = true)
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class FlinkImageITCase {
  private static final Duration TIMEOUT = Duration.ofMinutes(4);

  @TempDir Path dir;

  @Test
  void aJobJarIsExactlyOnceWhenItsTaskManagerContainerIsKilled() throws Exception {
    Path data = dir.resolve("data");
    try (FlinkContainers cluster = new FlinkContainers(data, false).start()) {
      FlinkRestClient rest = cluster.rest();
      String jar =
          rest.uploadJar(ConnectorJars.jobJar(CheckpointedWriteJob.class, dir.resolve("job.jar")));
      String table = data.resolve("killed.lance").toString();
      long rows = 20_000;
      String job =
          rest.runJar(
              jar,
              CheckpointedWriteJob.class.getName(),
              List.of(table, Long.toString(rows), "1500", "docker-kill"),
              2);
      Await.until(
          "a committed checkpoint",
          TIMEOUT,
          () -> LanceTestTables.hasVersion(table) && !LanceTestTables.sinkCommits(table).isEmpty(),
          () -> rest.jobStatus(job));
      cluster.killTaskManager();
      cluster.startTaskManager();
      Await.until(
          "the job to finish",
          TIMEOUT,
          () -> rest.jobStatus(job).equals("FINISHED"),
          () -> rest.jobStatus(job) + " " + rest.exceptionHistory(job));

      assertThat(rest.exceptionHistory(job)).as("the kill was noticed").isNotEmpty();
      assertThat(LanceTestTables.readLongs(table, "id").stream().sorted().toList())
          .isEqualTo(LongStream.range(0, rows).boxed().toList());
    }
  }

  @Test
  void sqlThroughTheGatewayWithTheConnectorInLib() throws Exception {
    Path data = dir.resolve("data");
    try (FlinkContainers cluster = new FlinkContainers(data, true).start()) {
      SqlGatewayClient gateway = cluster.startSqlGateway();
      Path table = data.resolve("events.lance");
      try (SqlGatewayClient.Session sql = gateway.openSession(Map.of())) {
        for (String statement :
            List.of(
                "SET 'execution.runtime-mode' = 'batch'",
                "SET 'table.dml-sync' = 'true'",
                "CREATE TABLE events (id BIGINT NOT NULL) WITH ('connector' = 'lance', 'path' = '"
                    + table
                    + "')",
                "CREATE TEMPORARY TABLE gen (id BIGINT NOT NULL) WITH ('connector' = 'datagen',"
                    + " 'number-of-rows' = '1000', 'fields.id.kind' = 'sequence',"
                    + " 'fields.id.start' = '0', 'fields.id.end' = '999')",
                "INSERT INTO events SELECT id FROM gen")) {
          sql.execute(statement, TIMEOUT);
        }
        assertThat(sql.execute("SELECT COUNT(*), SUM(id) FROM events WHERE id < 500", TIMEOUT))
            .isEqualTo(List.of(List.of(500L, 124_750L)));
      }
      assertThat(LanceTestTables.countRows(table.toString())).isEqualTo(1000);
    }
  }
}
