package dev.flinklance.sink.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flinklance.sink.CommitFailingSink;
import dev.flinklance.sink.CommitFailingSink.When;
import dev.flinklance.sink.InvalidRecordPolicy;
import dev.flinklance.sink.LanceSink;
import dev.flinklance.sink.LanceSinkBuilder;
import dev.flinklance.sink.LanceSinkOptions;
import dev.flinklance.testing.Failures;
import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.LanceTestTables.Commit;
import dev.flinklance.testing.TestRows;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.stream.LongStream;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.CheckpointingMode;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Exactly-once under injected failures: every test ends with each id present exactly once and each
 * checkpoint committed by at most one Lance transaction.
 */
class ExactlyOnceITCase {
  private static final int ROWS = 4_000;
  private static final int PARALLELISM = 2;

  @RegisterExtension static final MiniClusterExtension CLUSTER = SinkTestCluster.create();

  @TempDir Path dir;

  private final String token = UUID.randomUUID().toString();

  @Test
  void failureAfterACompletedCheckpointLosesAndDuplicatesNothing() throws Exception {
    String table = runThrough(new Failures.FailAfterCheckpoint(token, 2));

    assertThat(Failures.fired(token)).as("the failure was injected").isTrue();
    assertExactlyOnce(table);
  }

  @Test
  void checkpointDeclinedAfterWritersFlushedNeverBecomesVisible() throws Exception {
    String table = runThrough(new Failures.DeclineCheckpoint(token, 2));

    assertThat(Failures.fired(token)).as("the checkpoint was declined").isTrue();
    assertExactlyOnce(table);
    assertThat(LanceTestTables.unreferencedDataFiles(table))
        .as("fragment files the writers flushed for the declined checkpoint stay orphaned")
        .isNotEmpty();
  }

  @Test
  void skippedInvalidRecordsStayOutAcrossAFailure() throws Exception {
    String table = dir.resolve("t").toString();
    StreamExecutionEnvironment env = restartingEnv();
    source(env)
        .map(PoisonedRows::poison)
        .returns(TestRows.TYPE_INFO)
        .map(new Failures.FailAfterCheckpoint(token, 2))
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

  /** Runs source, then {@code injector} chained in front of the sink writer; returns the table. */
  private String runThrough(MapFunction<RowData, RowData> injector) throws Exception {
    String table = dir.resolve("t").toString();
    StreamExecutionEnvironment env = restartingEnv();
    source(env)
        .map(injector)
        .returns(TestRows.TYPE_INFO)
        .sinkTo(LanceSink.forRowData(TestRows.ROW_TYPE).path(table).build());
    env.execute();
    return table;
  }

  @ParameterizedTest
  @EnumSource(When.class)
  void committerFailureIsReplayedExactlyOnce(When when) throws Exception {
    String table = dir.resolve("t").toString();
    StreamExecutionEnvironment env = restartingEnv();
    LanceSink<RowData> sink = LanceSink.forRowData(TestRows.ROW_TYPE).path(table).build();
    source(env).sinkTo(new CommitFailingSink<>(sink, token, 2, when));
    env.execute();

    assertThat(Failures.fired(token)).as("the committer failure was injected").isTrue();
    assertExactlyOnce(table);
  }

  /**
   * A redeploy without savepoint, with a configured commit user: the new job's checkpoint ids
   * repeat the earlier job's. Its first checkpoint, replayed after a committer failure, is new and
   * must land (the earlier protocol skipped it because the user had higher ids in the table).
   */
  @Test
  void aFreshJobWithAConfiguredCommitUserCommitsItsReplayedFirstCheckpoint() throws Exception {
    String table = dir.resolve("t").toString();
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
    String table = dir.resolve("t").toString();
    Configuration config = restartConfig();
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
    String table = dir.resolve("t").toString();
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

  private static LanceSinkBuilder<RowData> sink(String table) {
    return LanceSink.forRowData(TestRows.ROW_TYPE).path(table);
  }

  private static StreamExecutionEnvironment restartingEnv() {
    StreamExecutionEnvironment env =
        StreamExecutionEnvironment.getExecutionEnvironment(restartConfig());
    env.setParallelism(PARALLELISM);
    env.enableCheckpointing(100);
    return env;
  }

  private static Configuration restartConfig() {
    Configuration config = new Configuration();
    config.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
    config.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 3);
    config.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(100));
    return config;
  }

  /** Rate-limited so the job spans several checkpoints. */
  private static DataStream<RowData> source(StreamExecutionEnvironment env) {
    return env.fromSource(
        TestRows.source(ROWS, RateLimiterStrategy.perCheckpoint(250)),
        WatermarkStrategy.noWatermarks(),
        "ids");
  }

  private static void assertExactlyOnce(String table) {
    assertThat(LanceTestTables.readLongs(table, "id"))
        .containsExactlyInAnyOrderElementsOf(LongStream.range(0, ROWS).boxed().toList());
    List<Commit> commits = LanceTestTables.sinkCommits(table);
    assertThat(commits).extracting(Commit::checkpointId).doesNotHaveDuplicates();
    assertThat(commits.size()).as("the job committed over several checkpoints").isGreaterThan(2);
  }
}
