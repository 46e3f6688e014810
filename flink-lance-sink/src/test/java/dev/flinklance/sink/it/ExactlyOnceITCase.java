package dev.flinklance.sink.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flinklance.sink.CommitFailingSink;
import dev.flinklance.sink.CommitFailingSink.When;
import dev.flinklance.sink.InvalidRecordPolicy;
import dev.flinklance.sink.LanceSinkOptions;
import dev.flinklance.testing.Failures;
import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.TestClusters;
import dev.flinklance.testing.TestRows;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.stream.LongStream;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.core.execution.CheckpointingMode;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Exactly-once under injected failures on local disk: the {@link FailoverCases}, and the cases
 * about the commit protocol that do not depend on the store.
 */
class ExactlyOnceITCase extends FailoverCases {

  @RegisterExtension static final MiniClusterExtension CLUSTER = TestClusters.withoutRestarts();

  @TempDir Path dir;

  @Override
  String newTable() {
    return dir.resolve("t").toString();
  }

  @Override
  Map<String, String> storageOptions() {
    return Map.of();
  }

  @Override
  Set<String> unreferencedDataFiles(String table) {
    return LanceTestTables.unreferencedDataFiles(table);
  }

  @Test
  void skippedInvalidRecordsStayOutAcrossAFailure() throws Exception {
    String table = newTable();
    StreamExecutionEnvironment env = restartingEnv();
    source(env)
        .map(PoisonedRows::poison)
        .returns(TestRows.TYPE_INFO)
        .map(new Failures.FailAfterCheckpoint<>(token, 2))
        .returns(TestRows.TYPE_INFO)
        .sinkTo(
            sink(table)
                .set(LanceSinkOptions.SINK_ON_INVALID_RECORD, InvalidRecordPolicy.SKIP)
                .build());
    env.execute();

    assertThat(Failures.fired(token)).as("the failure was injected").isTrue();
    assertThat(LanceTestTables.readLongs(table, "id"))
        .containsExactlyInAnyOrderElementsOf(PoisonedRows.goodIds(ROWS));
  }

  /**
   * A redeploy without savepoint, with a configured commit user: the new job's checkpoint ids
   * repeat the earlier job's. Its first checkpoint, replayed after a committer failure, is new and
   * must land (the earlier protocol skipped it because the user had higher ids in the table).
   */
  @Test
  void aFreshJobWithAConfiguredCommitUserCommitsItsReplayedFirstCheckpoint() throws Exception {
    String table = newTable();
    StreamExecutionEnvironment earlier = restartingEnv();
    source(earlier).sinkTo(sink(table).commitUser("ingest").build());
    earlier.execute();
    assertThat(LanceTestTables.sinkCommits(table)).hasSizeGreaterThan(2);

    StreamExecutionEnvironment fresh = restartingEnv();
    source(fresh)
        .sinkTo(
            new CommitFailingSink<>(
                sink(table).commitUser("ingest").build(), token, 1, When.BEFORE_COMMIT));
    fresh.execute();

    assertThat(Failures.fired(token)).as("the committer failure was injected").isTrue();
    assertThat(LanceTestTables.readLongs(table, "id"))
        .as("every id once from each job")
        .containsExactlyInAnyOrderElementsOf(
            LongStream.range(0, 2 * ROWS).map(i -> i % ROWS).boxed().toList());
  }

  /** BATCH mode has no checkpoints: a committer re-run gets the same committable again. */
  @ParameterizedTest
  @EnumSource(When.class)
  void batchCommitterFailoverCommitsOnce(When when) throws Exception {
    String table = newTable();
    Configuration config = TestClusters.threeRestarts();
    config.set(ExecutionOptions.RUNTIME_MODE, RuntimeExecutionMode.BATCH);
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(config);
    env.setParallelism(PARALLELISM);
    env.fromSource(TestRows.source(ROWS), WatermarkStrategy.noWatermarks(), "ids")
        .sinkTo(new CommitFailingSink<>(sink(table).build(), token, 1, when));
    env.execute();

    assertThat(Failures.fired(token)).as("the committer failure was injected").isTrue();
    assertThat(LanceTestTables.readLongs(table, "id"))
        .containsExactlyInAnyOrderElementsOf(LongStream.range(0, ROWS).boxed().toList());
    assertThat(LanceTestTables.sinkCommits(table)).hasSize(1);
  }

  /**
   * Unaligned barriers: the fast writers finish and send their last results (of checkpoint N+1)
   * while the slow writer's barrier N is still queued behind its records. The job runs through
   * without restarts, every row once (no failure here, so at-least-once shows no duplicates).
   */
  @Test
  void atLeastOnceCheckpointingWithWritersFinishingAtDifferentTimes() throws Exception {
    String table = newTable();
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setParallelism(4);
    env.enableCheckpointing(50, CheckpointingMode.AT_LEAST_ONCE);
    env.getCheckpointConfig().setMaxConcurrentCheckpoints(3);
    source(env)
        .map(new SlowFirstSubtask())
        .returns(TestRows.TYPE_INFO)
        .disableChaining() // records queue in network buffers ahead of the barriers
        .sinkTo(sink(table).build());
    env.execute();

    assertThat(LanceTestTables.readLongs(table, "id"))
        .containsExactlyInAnyOrderElementsOf(LongStream.range(0, ROWS).boxed().toList());
    assertThat(LanceTestTables.sinkCommits(table).size())
        .as("the slow writer spans several checkpoints")
        .isGreaterThan(2);
  }

  /** Subtask 0 takes two milliseconds per record; the others run at full speed. */
  private static final class SlowFirstSubtask extends RichMapFunction<RowData, RowData> {
    private static final long serialVersionUID = 1L;

    @Override
    public RowData map(RowData row) throws InterruptedException {
      if (getRuntimeContext().getTaskInfo().getIndexOfThisSubtask() == 0) {
        Thread.sleep(2);
      }
      return row;
    }
  }
}
