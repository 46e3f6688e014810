package dev.flinklance.sink.dynamic;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flinklance.sink.dynamic.FailingDynamicSink.When;
import dev.flinklance.testing.Failures;
import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.LanceTestTables.Commit;
import dev.flinklance.testing.TestClusters;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Many tables from one stream (half with a primary key, half appended to), the tables gaining a
 * column mid-stream while older-schema records keep coming, with a failure injected before the
 * commits, after them before their acknowledgement, or in a writer mid-checkpoint: every table
 * equals its reference model row by row, and each table has at most one stamped commit per
 * checkpoint, never the same checkpoint twice.
 */
class DynamicSinkITCase {
  private static final int PER_CHECKPOINT = 400;

  @RegisterExtension static final MiniClusterExtension CLUSTER = TestClusters.withoutRestarts();

  @TempDir Path dir;

  private final String token = UUID.randomUUID().toString();

  @ParameterizedTest(name = "{0} tables, parallelism {1}, failure {2}, key files {3}")
  @CsvSource({
    "20, 1, NONE, false",
    "20, 3, NONE, false",
    "20, 3, BEFORE_COMMIT, false",
    "20, 3, AFTER_COMMIT_BEFORE_ACK, false",
    "20, 3, AFTER_COMMIT_BEFORE_ACK, true",
    "20, 3, WRITER_MID_CHECKPOINT, false",
    "50, 2, WRITER_MID_CHECKPOINT, false"
  })
  void everyTableEndsAsItsModel(int tables, int parallelism, When failure, boolean keyFiles)
      throws Exception {
    ManyTables records = new ManyTables(tables, tables * 120L, 40, 60);
    String warehouse = dir.resolve("warehouse").toString();
    StreamExecutionEnvironment env =
        StreamExecutionEnvironment.getExecutionEnvironment(TestClusters.threeRestarts());
    env.setParallelism(parallelism);
    env.enableCheckpointing(100);
    DynamicLanceSink sink =
        DynamicLanceSink.builder()
            .warehouse(warehouse)
            .option("sink.dynamic.max-open-tables", "8")
            .option("sink.upsert.max-inline-keys-size", keyFiles ? "0" : "256kb")
            .build();
    env.fromSource(
            records.source(RateLimiterStrategy.perCheckpoint(PER_CHECKPOINT)),
            WatermarkStrategy.noWatermarks(),
            "records")
        .setParallelism(1) // one reader: a key's changes leave the source in order
        .sinkTo(new FailingDynamicSink(sink, token, 3, failure));
    env.execute();

    if (failure != When.NONE) {
      assertThat(Failures.fired(token)).as("the failure was injected").isTrue();
    }
    Map<String, Map<Long, List<Object>>> model = records.model();
    int checkpointsWithCommits = 0;
    int tablesWithKeyFiles = 0;
    for (Map.Entry<String, Map<Long, List<Object>>> table : model.entrySet()) {
      String uri = warehouse + "/" + ManyTables.DATABASE + "/" + table.getKey() + ".lance";
      assertThat(ManyTables.rows(uri)).as(table.getKey()).isEqualTo(table.getValue());
      List<Commit> commits = LanceTestTables.sinkCommits(uri);
      assertThat(commits)
          .as("%s: one commit per checkpoint", table.getKey())
          .extracting(Commit::checkpointId)
          .doesNotHaveDuplicates();
      checkpointsWithCommits = Math.max(checkpointsWithCommits, commits.size());
      tablesWithKeyFiles += Files.isDirectory(Path.of(uri, "_keys")) ? 1 : 0;
    }
    assertThat(tablesWithKeyFiles > 0).as("upserted tables had key files").isEqualTo(keyFiles);
    assertThat(checkpointsWithCommits).as("the job spanned several checkpoints").isGreaterThan(4);
  }
}
