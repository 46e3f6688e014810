package dev.flinklance.sink.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flinklance.sink.CommitFailingSink;
import dev.flinklance.sink.LanceSink;
import dev.flinklance.testing.Await;
import dev.flinklance.testing.Changelog;
import dev.flinklance.testing.Failures;
import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.LanceTestTables.Commit;
import dev.flinklance.testing.TestClusters;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A sink with a primary key restored from a savepoint taken several checkpoints before the job it
 * came from stopped, failing once before its first new commit. The committables in the savepoint
 * had landed already and are recognised by their stamps: no checkpoint's changes are applied twice
 * (which would put keys back to their values of the savepoint after later commits); the restored
 * job replays the source from the savepoint and the table ends as the changelog's model.
 */
class UpsertSavepointITCase {
  private static final int CHANGES = 6_000;

  @RegisterExtension static final MiniClusterExtension CLUSTER = TestClusters.withoutRestarts();

  @TempDir Path dir;

  @Test
  void restoreFromAnOlderSavepointThenFailoverAppliesNothingTwice() throws Exception {
    String table = dir.resolve("t").toString();
    String token = UUID.randomUUID().toString();
    Changelog changelog = new Changelog(CHANGES, 300, 150);
    LanceSink<RowData> sink =
        LanceSink.forRowData(Changelog.ROW_TYPE).path(table).primaryKey("id").build();

    JobClient first =
        job(StreamExecutionEnvironment.getExecutionEnvironment(), changelog, sink, 100)
            .executeAsync();
    LanceTestTables.awaitSinkCommits(table, 3, Duration.ofMinutes(1));
    String savepoint =
        first
            .triggerSavepoint(
                dir.resolve("savepoints").toUri().toString(), SavepointFormatType.CANONICAL)
            .get();
    int atSavepoint = LanceTestTables.sinkCommits(table).size();
    LanceTestTables.awaitSinkCommits(table, atSavepoint + 4, Duration.ofMinutes(1));
    Await.cancel(first, Duration.ofMinutes(2));
    List<Commit> beforeRestore = LanceTestTables.sinkCommits(table);

    Configuration restore = TestClusters.threeRestarts();
    restore.set(StateRecoveryOptions.SAVEPOINT_PATH, savepoint);
    job(
            StreamExecutionEnvironment.getExecutionEnvironment(restore),
            changelog,
            new CommitFailingSink<>(sink, token, 0, CommitFailingSink.When.BEFORE_COMMIT),
            Integer.MAX_VALUE)
        .execute();

    assertThat(Failures.fired(token))
        .as("the restored job failed before its first commit")
        .isTrue();
    assertThat(Changelog.tableRows(table, Map.of())).isEqualTo(changelog.model());
    List<Commit> commits = LanceTestTables.sinkCommits(table);
    assertThat(commits)
        .extracting(c -> c.run() + "#" + c.runSeq())
        .as("every committable landed once")
        .doesNotHaveDuplicates();
    assertThat(commits.subList(0, beforeRestore.size()))
        .as("the first job's commits")
        .isEqualTo(beforeRestore);
    assertThat(commits.subList(beforeRestore.size(), commits.size()))
        .extracting(Commit::run)
        .as("after the restore only the restored job's own run commits")
        .doesNotContainAnyElementsOf(beforeRestore.stream().map(Commit::run).toList());
  }

  private static StreamExecutionEnvironment job(
      StreamExecutionEnvironment env, Changelog changelog, Sink<RowData> sink, int perCheckpoint) {
    env.setParallelism(2);
    env.enableCheckpointing(100);
    env.fromSource(
            changelog.source(RateLimiterStrategy.perCheckpoint(perCheckpoint)),
            WatermarkStrategy.noWatermarks(),
            "changelog")
        .uid("changelog")
        .setParallelism(1)
        .sinkTo(sink)
        .uid("lance-sink");
    return env;
  }
}
