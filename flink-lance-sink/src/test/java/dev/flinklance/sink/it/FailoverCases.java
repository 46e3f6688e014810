package dev.flinklance.sink.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flinklance.sink.CommitFailingSink;
import dev.flinklance.sink.CommitFailingSink.When;
import dev.flinklance.sink.LanceSink;
import dev.flinklance.sink.LanceSinkBuilder;
import dev.flinklance.testing.Failures;
import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.LanceTestTables.Commit;
import dev.flinklance.testing.TestClusters;
import dev.flinklance.testing.TestRows;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.LongStream;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.RowData;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The exactly-once failover cases, for a table on any store: every test ends with each id present
 * exactly once and each checkpoint committed by at most one Lance transaction. {@link
 * ExactlyOnceITCase} runs them on local disk, {@link S3ExactlyOnceITCase} on the S3 test server.
 */
abstract class FailoverCases {
  static final int ROWS = 4_000;
  static final int PARALLELISM = 2;

  final String token = UUID.randomUUID().toString();

  /** A table URI no other test uses. */
  abstract String newTable();

  /** Lance storage options of the tables {@link #newTable} hands out. */
  abstract Map<String, String> storageOptions();

  /** Names of the data files under {@code table} that its latest version does not reference. */
  abstract Set<String> unreferencedDataFiles(String table);

  @Test
  void failureAfterACompletedCheckpointLosesAndDuplicatesNothing() throws Exception {
    String table = runThrough(new Failures.FailAfterCheckpoint<>(token, 2));

    assertThat(Failures.fired(token)).as("the failure was injected").isTrue();
    assertExactlyOnce(table);
  }

  @Test
  void checkpointDeclinedAfterWritersFlushedNeverBecomesVisible() throws Exception {
    String table = runThrough(new Failures.DeclineCheckpoint<>(token, 2));

    assertThat(Failures.fired(token)).as("the checkpoint was declined").isTrue();
    assertExactlyOnce(table);
    assertThat(unreferencedDataFiles(table))
        .as("fragment files the writers flushed for the declined checkpoint stay orphaned")
        .isNotEmpty();
  }

  @ParameterizedTest
  @EnumSource(When.class)
  void committerFailureIsReplayedExactlyOnce(When when) throws Exception {
    String table = newTable();
    StreamExecutionEnvironment env = restartingEnv();
    source(env).sinkTo(new CommitFailingSink<>(sink(table).build(), token, 2, when));
    env.execute();

    assertThat(Failures.fired(token)).as("the committer failure was injected").isTrue();
    assertExactlyOnce(table);
  }

  /** Runs source, then {@code injector} chained in front of the sink writer; returns the table. */
  private String runThrough(MapFunction<RowData, RowData> injector) throws Exception {
    String table = newTable();
    StreamExecutionEnvironment env = restartingEnv();
    source(env).map(injector).returns(TestRows.TYPE_INFO).sinkTo(sink(table).build());
    env.execute();
    return table;
  }

  LanceSinkBuilder<RowData> sink(String table) {
    return LanceSink.forRowData(TestRows.ROW_TYPE).path(table).storageOptions(storageOptions());
  }

  List<Long> ids(String table) {
    return LanceTestTables.readLongs(table, storageOptions(), "id");
  }

  static StreamExecutionEnvironment restartingEnv() {
    StreamExecutionEnvironment env =
        StreamExecutionEnvironment.getExecutionEnvironment(TestClusters.threeRestarts());
    env.setParallelism(PARALLELISM);
    env.enableCheckpointing(100);
    return env;
  }

  /** Rate-limited so the job spans several checkpoints. */
  static DataStream<RowData> source(StreamExecutionEnvironment env) {
    return env.fromSource(
        TestRows.source(ROWS, RateLimiterStrategy.perCheckpoint(250)),
        WatermarkStrategy.noWatermarks(),
        "ids");
  }

  void assertExactlyOnce(String table) {
    assertThat(ids(table))
        .containsExactlyInAnyOrderElementsOf(LongStream.range(0, ROWS).boxed().toList());
    List<Commit> commits = LanceTestTables.sinkCommits(table, storageOptions());
    assertThat(commits).extracting(Commit::checkpointId).doesNotHaveDuplicates();
    assertThat(commits.size()).as("the job committed over several checkpoints").isGreaterThan(2);
  }
}
