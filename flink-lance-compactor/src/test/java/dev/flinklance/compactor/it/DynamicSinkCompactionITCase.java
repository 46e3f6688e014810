package dev.flinklance.compactor.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flinklance.compactor.testing.DynamicTables;
import dev.flinklance.sink.dynamic.DynamicLanceSink;
import dev.flinklance.sink.dynamic.DynamicRecord;
import dev.flinklance.sink.dynamic.DynamicRecordTypeInfo;
import dev.flinklance.testing.Failures;
import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.TestClusters;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The dynamic sink with {@code compaction.enabled}: every table it writes is compacted in the job,
 * tables with a primary key (whose upserts delete rows) and appended ones alike, through a failure
 * of the job, and at the end of a bounded job. Each table ends equal to its model row by row, with
 * compactions in its own history.
 */
class DynamicSinkCompactionITCase {
  private static final int TABLES = 6;

  @RegisterExtension static final MiniClusterExtension CLUSTER = TestClusters.withFlinksRestarts();

  @TempDir Path dir;

  @Test
  void everyTableIsCompactedInTheJobThroughAFailure() throws Exception {
    DynamicTables tables = new DynamicTables(TABLES, 12_000, 40);
    String failure = UUID.randomUUID().toString();
    DynamicLanceSink sink =
        DynamicLanceSink.builder()
            .warehouse(dir.toString())
            .option("stable-row-ids", "true")
            .option("compaction.enabled", "true")
            .option("compaction.trigger.small-fragments", "6")
            .option("compaction.cleanup-older-than", "1 h")
            .option("compaction.parallelism", "2")
            .build();
    StreamExecutionEnvironment env =
        StreamExecutionEnvironment.getExecutionEnvironment(TestClusters.threeRestarts());
    env.setParallelism(2);
    env.enableCheckpointing(100);
    env.fromSource(
            tables.source(RateLimiterStrategy.perCheckpoint(60)),
            WatermarkStrategy.noWatermarks(),
            "records")
        .setParallelism(1)
        .map(new Failures.FailAfterCheckpoint<DynamicRecord>(failure, 60))
        .setParallelism(1)
        .returns(new DynamicRecordTypeInfo())
        .sinkTo(sink)
        .uid("dynamic-sink");
    env.execute();

    assertThat(Failures.fired(failure)).as("failure injected").isTrue();
    for (int t = 0; t < TABLES; t++) {
      String uri = tables.uri(dir, t);
      assertThat(DynamicTables.rows(uri)).as("rows of %s", uri).isEqualTo(tables.model().get(t));
      List<LanceTestTables.Commit> commits = LanceTestTables.commits(uri);
      long sinkCommits = commits.stream().filter(c -> c.checkpointId() != null).count();
      long compactions = commits.stream().filter(c -> c.operation().equals("Rewrite")).count();
      int fragments = LanceTestTables.fragmentCount(uri);
      System.out.printf(
          "%s: %d sink commits, %d compactions, %d fragments at the end%n",
          DynamicTables.name(t), sinkCommits, compactions, fragments);
      assertThat(sinkCommits).as("checkpoints committed to %s", uri).isGreaterThanOrEqualTo(100);
      assertThat(compactions).as("compactions of %s", uri).isPositive();
      assertThat(fragments).as("fragments of %s", uri).isLessThan((int) sinkCommits / 4);
    }
  }

  /** A bounded job commits each table once, at its end; the compaction runs before the job ends. */
  @Test
  void aBoundedJobCompactsItsTablesBeforeItEnds() throws Exception {
    DynamicTables tables = new DynamicTables(4, 4_000, 100);
    DynamicLanceSink sink =
        DynamicLanceSink.builder()
            .warehouse(dir.toString())
            .option("sink.max-rows-per-file", "50")
            .option("compaction.enabled", "true")
            .option("compaction.trigger.small-fragments", "2")
            .build();
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setRuntimeMode(RuntimeExecutionMode.BATCH);
    env.setParallelism(2);
    env.fromSource(
            tables.source(RateLimiterStrategy.noOp()), WatermarkStrategy.noWatermarks(), "records")
        .setParallelism(1) // the model's order of each key's changes
        .sinkTo(sink);
    env.execute();

    for (int t = 0; t < 4; t++) {
      String uri = tables.uri(dir, t);
      assertThat(DynamicTables.rows(uri)).as("rows of %s", uri).isEqualTo(tables.model().get(t));
      List<String> operations =
          LanceTestTables.commits(uri).stream().map(LanceTestTables.Commit::operation).toList();
      assertThat(operations).as("operations on %s", uri).endsWith("Rewrite");
      if (!DynamicTables.keyed(t)) {
        assertThat(LanceTestTables.fragmentCount(uri)).as("fragments of %s", uri).isEqualTo(1);
      }
    }
  }
}
