package dev.flinklance.sink.dynamic;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flinklance.sink.dynamic.FailingDynamicSink.When;
import dev.flinklance.testing.Failures;
import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.LanceTestTables.Commit;
import dev.flinklance.testing.TestClusters;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A dynamic sink of 12 tables (keyed and appended) stopped with a savepoint and restored at another
 * parallelism (3, then 2), failing once before its first new commits: the committables in the
 * savepoint are recognised per table (landed ones skipped), the source goes on from the savepoint,
 * and every table ends as its model with every commit landed once.
 */
class DynamicSinkRestoreITCase {
  private static final int TABLES = 12;

  @RegisterExtension static final MiniClusterExtension CLUSTER = TestClusters.withoutRestarts();

  @TempDir Path dir;

  @Test
  void restoreAtAnotherParallelismAppliesEveryChangeOnce() throws Exception {
    String warehouse = dir.resolve("warehouse").toString();
    String token = UUID.randomUUID().toString();
    ManyTables records = new ManyTables(TABLES, TABLES * 400L, 50, 200);
    DynamicLanceSink sink = DynamicLanceSink.builder().warehouse(warehouse).build();
    String probe = uri(warehouse, ManyTables.table(0));

    JobClient first =
        job(StreamExecutionEnvironment.getExecutionEnvironment(), records, sink, 3, 120)
            .executeAsync();
    LanceTestTables.awaitSinkCommits(probe, 3, Duration.ofMinutes(1));
    String savepoint =
        first
            .stopWithSavepoint(
                false, dir.resolve("savepoints").toUri().toString(), SavepointFormatType.CANONICAL)
            .get();
    Map<String, List<Commit>> beforeRestore = new HashMap<>();
    for (int t = 0; t < TABLES; t++) {
      beforeRestore.put(
          ManyTables.table(t), LanceTestTables.sinkCommits(uri(warehouse, ManyTables.table(t))));
    }

    Configuration restore = TestClusters.threeRestarts();
    restore.set(StateRecoveryOptions.SAVEPOINT_PATH, savepoint);
    job(
            StreamExecutionEnvironment.getExecutionEnvironment(restore),
            records,
            new FailingDynamicSink(sink, token, 0, When.BEFORE_COMMIT),
            2,
            Integer.MAX_VALUE)
        .execute();

    assertThat(Failures.fired(token)).as("the restored job failed before its commits").isTrue();
    Map<String, Map<Long, List<Object>>> model = records.model();
    for (int t = 0; t < TABLES; t++) {
      String table = ManyTables.table(t);
      String uri = uri(warehouse, table);
      assertThat(ManyTables.rows(uri)).as(table).isEqualTo(model.get(table));
      List<Commit> commits = LanceTestTables.sinkCommits(uri);
      assertThat(commits)
          .extracting(c -> c.run() + "#" + c.runSeq())
          .as("%s: every committable landed once", table)
          .doesNotHaveDuplicates();
      assertThat(commits.subList(0, beforeRestore.get(table).size()))
          .as("%s: the first job's commits", table)
          .isEqualTo(beforeRestore.get(table));
    }
  }

  private static String uri(String warehouse, String table) {
    return warehouse + "/" + ManyTables.DATABASE + "/" + table + ".lance";
  }

  private static StreamExecutionEnvironment job(
      StreamExecutionEnvironment env,
      ManyTables records,
      DynamicLanceSink sink,
      int parallelism,
      int perCheckpoint) {
    env.setParallelism(parallelism);
    env.enableCheckpointing(100);
    env.fromSource(
            records.source(RateLimiterStrategy.perCheckpoint(perCheckpoint)),
            WatermarkStrategy.noWatermarks(),
            "records")
        .uid("records")
        .setParallelism(1)
        .sinkTo(sink)
        .uid("lance-dynamic-sink");
    return env;
  }
}
