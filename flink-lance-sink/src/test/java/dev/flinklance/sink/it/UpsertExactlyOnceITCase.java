package dev.flinklance.sink.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flinklance.sink.CommitFailingSink;
import dev.flinklance.sink.LanceSink;
import dev.flinklance.sink.LanceSinkOptions;
import dev.flinklance.sink.WriterFailingSink;
import dev.flinklance.testing.Changelog;
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
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A changelog (inserts, updates, deletes, several changes per key per checkpoint) into a sink with
 * a primary key, at parallelism 1 and 3, with a failure injected before a commit, after a commit
 * before its acknowledgement, or in a writer mid-checkpoint: the final table holds, row by row,
 * exactly what the changelog's reference model holds and what Lance's own merge-insert makes of the
 * same changes; every checkpoint committed at most once. The same with every checkpoint's keys in
 * key files beside the table instead of in the committables.
 */
class UpsertExactlyOnceITCase {
  private static final int CHANGES = 4_000;
  private static final int PER_CHECKPOINT = 250;

  @RegisterExtension static final MiniClusterExtension CLUSTER = TestClusters.withoutRestarts();

  @TempDir Path dir;

  private final String token = UUID.randomUUID().toString();

  enum Failure {
    NONE,
    BEFORE_COMMIT,
    AFTER_COMMIT_BEFORE_ACK,
    WRITER_MID_CHECKPOINT
  }

  @ParameterizedTest(name = "parallelism {0}, {1} keys, failure {2}, key files {3}")
  @CsvSource({
    "1, 100, NONE, false",
    "3, 100, NONE, false",
    "1, 100, BEFORE_COMMIT, false",
    "3, 100, BEFORE_COMMIT, false",
    "1, 100, AFTER_COMMIT_BEFORE_ACK, false",
    "3, 100, AFTER_COMMIT_BEFORE_ACK, false",
    "1, 100, WRITER_MID_CHECKPOINT, false",
    "3, 100, WRITER_MID_CHECKPOINT, false",
    "3, 1000, WRITER_MID_CHECKPOINT, false",
    "3, 100, NONE, true",
    "1, 100, BEFORE_COMMIT, true",
    "3, 100, AFTER_COMMIT_BEFORE_ACK, true",
    "3, 1000, WRITER_MID_CHECKPOINT, true"
  })
  void theTableEndsAsTheModelAndAsLancesMergeInsert(
      int parallelism, int keys, Failure failure, boolean keyFiles) throws Exception {
    String table = dir.resolve("t").toString();
    Changelog changelog = new Changelog(CHANGES, keys, keys / 2);
    StreamExecutionEnvironment env = FailoverCases.restartingEnv();
    env.setParallelism(parallelism);
    env.fromSource(
            changelog.source(RateLimiterStrategy.perCheckpoint(PER_CHECKPOINT)),
            WatermarkStrategy.noWatermarks(),
            "changelog")
        .setParallelism(1) // one reader: the changes of a key leave the source in order
        .sinkTo(
            withFailure(
                failure,
                LanceSink.forRowData(Changelog.ROW_TYPE)
                    .path(table)
                    .primaryKey("id")
                    .set(
                        LanceSinkOptions.SINK_UPSERT_MAX_INLINE_KEYS_SIZE,
                        keyFiles ? MemorySize.ZERO : MemorySize.parse("1mb"))
                    .build()));
    env.execute();

    if (failure != Failure.NONE) {
      assertThat(Failures.fired(token)).as("the failure was injected").isTrue();
    }
    Map<Long, List<Object>> rows = Changelog.tableRows(table, Map.of());
    assertThat(rows).as("the reference model").isEqualTo(changelog.model());
    String reference = dir.resolve("merge-insert").toString();
    changelog.applyWithMergeInsert(reference, PER_CHECKPOINT);
    assertThat(rows).as("Lance's merge-insert").isEqualTo(Changelog.tableRows(reference, Map.of()));
    List<Commit> commits = LanceTestTables.sinkCommits(table);
    assertThat(commits).extracting(Commit::checkpointId).doesNotHaveDuplicates();
    assertThat(commits.size()).as("the job committed over several checkpoints").isGreaterThan(4);
    assertThat(commits).extracting(Commit::operation).containsOnly("Update");
    Path keyFileDirectory = Path.of(table, "_keys");
    assertThat(Files.isDirectory(keyFileDirectory))
        .as("key files were written")
        .isEqualTo(keyFiles);
    if (keyFiles && failure == Failure.NONE) {
      assertThat(UpsertLargeCheckpointITCase.keyFiles(table))
          .as("every commit's key files deleted once it landed")
          .isEmpty();
    }
  }

  private Sink<RowData> withFailure(Failure failure, LanceSink<RowData> sink) {
    switch (failure) {
      case BEFORE_COMMIT:
        return new CommitFailingSink<>(sink, token, 3, CommitFailingSink.When.BEFORE_COMMIT);
      case AFTER_COMMIT_BEFORE_ACK:
        return new CommitFailingSink<>(
            sink, token, 3, CommitFailingSink.When.AFTER_COMMIT_BEFORE_ACK);
      case WRITER_MID_CHECKPOINT:
        return new WriterFailingSink<>(sink, token, 3, 20);
      default:
        return sink;
    }
  }
}
