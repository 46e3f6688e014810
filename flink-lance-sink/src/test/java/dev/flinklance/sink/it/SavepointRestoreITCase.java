package dev.flinklance.sink.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flinklance.sink.LanceSink;
import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.LanceTestTables.Commit;
import dev.flinklance.testing.TestClusters;
import dev.flinklance.testing.TestRows;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.LongStream;
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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Stop-with-savepoint, then a NEW job (new job id) restored from the savepoint, at the same or a
 * different parallelism: no row lost, none duplicated, and the commit user survives the restore.
 */
class SavepointRestoreITCase {
  private static final int ROWS = 6_000;

  @RegisterExtension static final MiniClusterExtension CLUSTER = TestClusters.withoutRestarts();

  @TempDir Path dir;

  @ParameterizedTest(name = "parallelism {0} -> {1}")
  @CsvSource({"2, 2", "2, 4", "4, 2"})
  void restoreFromSavepointAsNewJob(int before, int after) throws Exception {
    String table = dir.resolve("t").toString();

    StreamExecutionEnvironment first = StreamExecutionEnvironment.getExecutionEnvironment();
    JobClient running =
        buildJob(first, table, before, RateLimiterStrategy.perCheckpoint(100)).executeAsync();
    LanceTestTables.awaitSinkCommits(table, 3, Duration.ofMinutes(1));
    String savepoint =
        running
            .stopWithSavepoint(
                false, dir.resolve("savepoints").toUri().toString(), SavepointFormatType.CANONICAL)
            .get();
    long rowsAtSavepoint = LanceTestTables.countRows(table);
    assertThat(rowsAtSavepoint).as("the first job stopped mid-way").isBetween(1L, ROWS - 1L);

    Configuration restore = new Configuration();
    restore.set(StateRecoveryOptions.SAVEPOINT_PATH, savepoint);
    StreamExecutionEnvironment second = StreamExecutionEnvironment.getExecutionEnvironment(restore);
    buildJob(second, table, after, RateLimiterStrategy.noOp()).execute();

    assertThat(LanceTestTables.readLongs(table, "id"))
        .containsExactlyInAnyOrderElementsOf(LongStream.range(0, ROWS).boxed().toList());
    List<Commit> commits = LanceTestTables.sinkCommits(table);
    assertThat(commits).extracting(Commit::checkpointId).doesNotHaveDuplicates().isSorted();
    assertThat(commits).extracting(Commit::commitUser).containsOnly(commits.get(0).commitUser());
    assertThat(commits)
        .extracting(c -> c.properties().get("flink.job-id"))
        .as("both jobs committed")
        .satisfies(ids -> assertThat(ids.stream().distinct().count()).isEqualTo(2));
  }

  /**
   * A job upgrade that adds an operator restores into a job graph whose generated operator hashes
   * all changed: only uids map state. The aggregator's state (the commit user) must map through the
   * sink's uid, without allowing non-restored state.
   */
  @Test
  void anUpgradeThatAddsAnOperatorKeepsTheSinksState() throws Exception {
    String table = dir.resolve("t").toString();
    StreamExecutionEnvironment first = StreamExecutionEnvironment.getExecutionEnvironment();
    JobClient running =
        buildJob(first, table, 2, RateLimiterStrategy.perCheckpoint(100)).executeAsync();
    LanceTestTables.awaitSinkCommits(table, 3, Duration.ofMinutes(1));
    String savepoint =
        running
            .stopWithSavepoint(
                false, dir.resolve("savepoints").toUri().toString(), SavepointFormatType.CANONICAL)
            .get();

    Configuration restore = new Configuration();
    restore.set(StateRecoveryOptions.SAVEPOINT_PATH, savepoint);
    restore.set(StateRecoveryOptions.SAVEPOINT_IGNORE_UNCLAIMED_STATE, false);
    StreamExecutionEnvironment upgraded =
        StreamExecutionEnvironment.getExecutionEnvironment(restore);
    upgraded.setParallelism(2);
    upgraded.enableCheckpointing(100);
    upgraded
        .fromSource(TestRows.source(ROWS), WatermarkStrategy.noWatermarks(), "ids")
        .uid("ids")
        .filter(row -> true)
        .uid("added-in-the-upgrade")
        .sinkTo(LanceSink.forRowData(TestRows.ROW_TYPE).path(table).build())
        .uid("lance-sink");
    upgraded.execute();

    assertThat(LanceTestTables.readLongs(table, "id"))
        .containsExactlyInAnyOrderElementsOf(LongStream.range(0, ROWS).boxed().toList());
    List<Commit> commits = LanceTestTables.sinkCommits(table);
    assertThat(commits)
        .extracting(Commit::commitUser)
        .as("the generated commit user came back from the aggregator's state")
        .containsOnly(commits.get(0).commitUser());
  }

  private static StreamExecutionEnvironment buildJob(
      StreamExecutionEnvironment env, String table, int parallelism, RateLimiterStrategy rate) {
    env.setParallelism(parallelism);
    env.enableCheckpointing(100);
    env.fromSource(TestRows.source(ROWS, rate), WatermarkStrategy.noWatermarks(), "ids")
        .uid("ids")
        .sinkTo(LanceSink.forRowData(TestRows.ROW_TYPE).path(table).build())
        .uid("lance-sink");
    return env;
  }
}
