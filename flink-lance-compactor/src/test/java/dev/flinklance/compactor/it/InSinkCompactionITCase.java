package dev.flinklance.compactor.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flinklance.compactor.CompactionConfig;
import dev.flinklance.compactor.testing.LineageCheck;
import dev.flinklance.compactor.testing.RewriteFailingSink;
import dev.flinklance.sink.LanceSink;
import dev.flinklance.testing.Failures;
import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.TestClusters;
import dev.flinklance.testing.TestRows;
import java.nio.file.Path;
import java.util.Map;
import java.util.UUID;
import java.util.stream.LongStream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.lance.Dataset;

/**
 * Ingest with {@code compaction.enabled} for a few hundred checkpoints, with an injected failure in
 * the sink and one in a rewrite worker: every row exactly once, the fragment count bounded, every
 * row's stable-row-id lineage untouched by compaction.
 */
class InSinkCompactionITCase {
  private static final int PARALLELISM = 2;
  private static final int ROWS_PER_CHECKPOINT = 80;
  private static final int ROWS = 20_000;
  private static final int SMALL_FRAGMENTS_TRIGGER = 8;

  /**
   * Fragments a version may have: the trigger's 8 small fragments, plus what the 2 writers append
   * (one fragment each per checkpoint) while a compaction is planned, rewritten and committed, plus
   * the compacted fragment. Measured: 23 on 2 cores. At a 50 ms checkpoint interval the compaction
   * commit, rebasing over 20 appends a second, took up to 4 s and the peak reached 146.
   */
  private static final int FRAGMENT_BOUND = 48;

  @RegisterExtension static final MiniClusterExtension CLUSTER = TestClusters.withFlinksRestarts();

  @TempDir Path dir;

  @Test
  void ingestWithCompactionSurvivesFailuresAndKeepsFragmentsAndLineage() throws Exception {
    String table = dir.resolve("events").toString();
    String sinkFailure = UUID.randomUUID().toString();
    String workerCrash = UUID.randomUUID().toString();
    String rewriteFailure = UUID.randomUUID().toString();
    Map<String, String> options =
        Map.of(
            "compaction.enabled", "true",
            "compaction.trigger.small-fragments", Integer.toString(SMALL_FRAGMENTS_TRIGGER),
            "compaction.parallelism", "2",
            "compaction.timeout", "3 s");
    LanceSink<RowData> sink =
        LanceSink.forRowData(TestRows.ROW_TYPE)
            .path(table)
            .stableRowIds(true)
            .options(options)
            .build();
    Configuration compaction = sink.config().options();
    StreamExecutionEnvironment env =
        StreamExecutionEnvironment.getExecutionEnvironment(TestClusters.threeRestarts());
    env.setParallelism(PARALLELISM);
    env.enableCheckpointing(100);
    env.fromSource(
            TestRows.source(ROWS, RateLimiterStrategy.perCheckpoint(ROWS_PER_CHECKPOINT)),
            WatermarkStrategy.noWatermarks(),
            "ids")
        .map(new Failures.FailAfterCheckpoint<>(sinkFailure, 60))
        .returns(TestRows.TYPE_INFO)
        .sinkTo(
            new RewriteFailingSink<>(
                sink,
                CompactionConfig.forTable(compaction, sink.config().dataset()),
                workerCrash,
                rewriteFailure))
        .uid("events-sink");
    env.execute();

    assertThat(Failures.fired(sinkFailure)).as("sink failure injected").isTrue();
    assertThat(Failures.fired(workerCrash)).as("rewrite worker crash injected").isTrue();
    assertThat(Failures.fired(rewriteFailure)).as("rewrite failure injected").isTrue();
    assertThat(LanceTestTables.readLongs(table, "id"))
        .containsExactlyInAnyOrderElementsOf(LongStream.range(0, ROWS).boxed().toList());
    var commits = LanceTestTables.commits(table);
    long sinkCommits = commits.stream().filter(c -> c.checkpointId() != null).count();
    long compactions = commits.stream().filter(c -> c.operation().equals("Rewrite")).count();
    int maxFragments = maxFragmentsOfAnyVersion(table);
    System.out.printf(
        "%d sink commits, %d compactions, at most %d fragments in a version, %d at the end%n",
        sinkCommits, compactions, maxFragments, LanceTestTables.fragmentCount(table));
    assertThat(sinkCommits).as("checkpoints committed").isGreaterThanOrEqualTo(200);
    assertThat(compactions).as("compaction commits").isGreaterThanOrEqualTo(5);
    assertThat(maxFragments).isLessThanOrEqualTo(FRAGMENT_BOUND);
    LineageCheck.assertUnchangedSinceAppend(table);
  }

  private static int maxFragmentsOfAnyVersion(String uri) {
    int max = 0;
    try (BufferAllocator allocator = new RootAllocator();
        Dataset latest = Dataset.open().allocator(allocator).uri(uri).build()) {
      for (long version = 1; version <= latest.version(); version++) {
        try (Dataset at = latest.checkoutVersion(version)) {
          max = Math.max(max, at.getFragments().size());
        }
      }
    }
    return max;
  }
}
