package dev.flinklance.compactor.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flinklance.compactor.CompactionFailedException;
import dev.flinklance.compactor.LanceCompactionJob;
import dev.flinklance.compactor.testing.LineageTables;
import dev.flinklance.sink.LanceSink;
import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.LogCapture;
import dev.flinklance.testing.S3TestServer;
import dev.flinklance.testing.TestClusters;
import dev.flinklance.testing.TestRows;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.ExceptionUtils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Compactions that can never succeed leave the ingest job alone: the job runs without a restart
 * strategy, so a single failure caused by the compactor would fail it; it runs to its end with
 * every row once while every compaction it tries fails (and is logged). Run on its own, once, such
 * a compaction fails its job with the cause.
 */
@Timeout(180)
class CompactionNeverFailsIngestITCase {
  private static final int ROWS = 2_000;

  @RegisterExtension static final S3TestServer S3 = new S3TestServer();
  @RegisterExtension static final MiniClusterExtension CLUSTER = TestClusters.withFlinksRestarts();

  @TempDir Path dir;

  @Test
  void aTableConfigTheCompactorCannotRead() throws Exception {
    String table = dir.resolve("events").toString();
    LineageTables.createStable(table);
    LineageTables.setConfig(table, Map.of("lance.row_lineage.spill", "yes"));

    String log = ingest(table, Map.of());

    assertThat(log)
        .contains("Could not plan a compaction of " + table)
        .contains("table config 'lance.row_lineage.spill' is 'yes', expected true or false");
    assertNothingCompacted(table, Map.of());
  }

  /**
   * A table whose compactions all spill lineage to side files, with storage options whose {@code
   * timeout = '1m 30s'} Lance reads and the AWS SDK client of the side files cannot: every
   * compaction fails at its commit.
   *
   * @return the storage options
   */
  private static Map<String, String> createWithUnreachableSideFiles(String table) {
    Map<String, String> storage = new HashMap<>(S3.storageOptions());
    storage.put("timeout", "1m 30s");
    LineageTables.useStorage(table, storage);
    LineageTables.createStable(table);
    LineageTables.setConfig(
        table,
        Map.of("lance.row_lineage.spill", "true", "lance.row_lineage.inline_max_bytes", "1"));
    return storage;
  }

  @Test
  void sideFilesTheCompactorCannotReach() throws Exception {
    String table = S3.newUri("events");
    Map<String, String> storage = createWithUnreachableSideFiles(table);

    String log = ingest(table, storage);

    assertThat(log)
        .contains("Lance table '" + table + "': cannot reach its row-lineage side files");
    assertNothingCompacted(table, storage);
  }

  /** The same compaction run on its own, once: the job fails at once with the cause. */
  @Test
  void aStandalonePassThatCannotSucceedFailsItsJob() throws Exception {
    String table = S3.newUri("standalone");
    Map<String, String> storage = createWithUnreachableSideFiles(table);
    LineageTables.append(table, 0, 100, 4);
    List<String> args = new ArrayList<>(List.of("--path", table, "--once"));
    storage.forEach((key, value) -> args.addAll(List.of("--storage." + key, value)));

    assertThatThrownBy(() -> LanceCompactionJob.main(args.toArray(String[]::new)))
        .satisfies(
            e -> {
              assertThat(ExceptionUtils.findThrowable(e, CompactionFailedException.class))
                  .isPresent();
              assertThat(ExceptionUtils.stringifyException(e))
                  .contains(
                      "Compaction of Lance table '" + table + "' failed, nothing was committed: ")
                  .contains("cannot reach its row-lineage side files");
            });
    assertThat(LanceTestTables.commits(table, storage))
        .noneMatch(commit -> commit.operation().equals("Rewrite"));
  }

  /** Ingest with compaction after every second commit; returns the log of the run. */
  private static String ingest(String table, Map<String, String> storage) throws Exception {
    Configuration noRestarts = new Configuration();
    noRestarts.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(noRestarts);
    env.setParallelism(1);
    env.enableCheckpointing(100);
    try (LogCapture log = LogCapture.start()) {
      env.fromSource(
              TestRows.source(ROWS, RateLimiterStrategy.perCheckpoint(100)),
              WatermarkStrategy.noWatermarks(),
              "ids")
          .sinkTo(
              LanceSink.forRowData(TestRows.ROW_TYPE)
                  .path(table)
                  .storageOptions(storage)
                  .options(
                      Map.of(
                          "compaction.enabled", "true",
                          "compaction.trigger.small-fragments", "2",
                          "compaction.timeout", "2 s"))
                  .build());
      env.execute();
      return log.text();
    }
  }

  private static void assertNothingCompacted(String table, Map<String, String> storage) {
    assertThat(LanceTestTables.readLongs(table, storage, "id"))
        .containsExactlyInAnyOrderElementsOf(LongStream.range(0, ROWS).boxed().toList());
    assertThat(LanceTestTables.commits(table, storage))
        .noneMatch(commit -> commit.operation().equals("Rewrite"));
  }
}
