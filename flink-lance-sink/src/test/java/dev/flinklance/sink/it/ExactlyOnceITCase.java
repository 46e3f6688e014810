package dev.flinklance.sink.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flinklance.sink.CommitFailingSink;
import dev.flinklance.sink.CommitFailingSink.When;
import dev.flinklance.sink.LanceSink;
import dev.flinklance.testing.Failures;
import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.LanceTestTables.Commit;
import dev.flinklance.testing.TestRows;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.stream.LongStream;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
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

  private static StreamExecutionEnvironment restartingEnv() {
    Configuration config = new Configuration();
    config.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
    config.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 3);
    config.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(100));
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(config);
    env.setParallelism(PARALLELISM);
    env.enableCheckpointing(100);
    return env;
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
