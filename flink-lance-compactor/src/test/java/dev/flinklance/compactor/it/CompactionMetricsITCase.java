package dev.flinklance.compactor.it;

import static dev.flinklance.compactor.testing.LineageTables.append;
import static dev.flinklance.compactor.testing.LineageTables.createStable;
import static org.assertj.core.api.Assertions.assertThat;

import dev.flinklance.compactor.CompactionConfig;
import dev.flinklance.compactor.CompactionTopology;
import dev.flinklance.compactor.plan.PlanRequest;
import dev.flinklance.compactor.rewrite.RewriteFunction;
import dev.flinklance.compactor.testing.LineageTables;
import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.TestClusters;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Metric;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.lance.Dataset;
import org.lance.compaction.CompactionTask;
import org.lance.compaction.RewriteResult;

/** The compactor's metrics after one pass with spill and GC, and after one preempted pass. */
class CompactionMetricsITCase {
  private static final InMemoryReporter REPORTER = InMemoryReporter.createWithRetainedMetrics();

  @RegisterExtension
  static final MiniClusterExtension CLUSTER = TestClusters.withMetrics(REPORTER, 2);

  @TempDir Path dir;

  @Test
  void reportsWhatCompactionDid() throws Exception {
    String table = dir.resolve("t").toString();
    createStable(table);
    append(table, 0, 2_000, 8);
    LineageTables.update(table, List.of(1L, 700L, 1_500L));
    LineageTables.setConfig(
        table,
        Map.of("lance.row_lineage.spill", "true", "lance.row_lineage.inline_max_bytes", "4"));
    Path orphan = Path.of(table).resolve("_rowids-orphan.bin");
    Files.write(orphan, new byte[] {1});
    Files.setLastModifiedTime(orphan, FileTime.from(Instant.now().minus(Duration.ofDays(1))));
    int fragmentsBefore = LanceTestTables.fragmentCount(table);

    JobID job = pass(table, new RewriteFunction(config(table).dataset()));

    Map<String, Metric> metrics = REPORTER.findMetrics(job, "lance");
    long sideFileBytes = Files.size(Path.of(table).resolve(LineageTables.sideFiles(table).get(0)));
    assertThat(count(metrics, "lanceCompactionsCommitted")).isEqualTo(1);
    assertThat(count(metrics, "lanceCompactionsFailed")).isZero();
    assertThat(count(metrics, "lanceCompactionConflicts")).isZero();
    assertThat(count(metrics, "lanceFragmentsRewritten")).isEqualTo(fragmentsBefore);
    assertThat(count(metrics, "lanceRowsRewritten")).isEqualTo(2_000);
    assertThat(count(metrics, "lanceBytesRewritten")).isPositive();
    assertThat(count(metrics, "lanceLineageBytesSpilled")).isEqualTo(sideFileBytes);
    assertThat(count(metrics, "lanceSideFilesDeleted")).isEqualTo(1);
    assertThat(gauge(metrics, "lanceFragmentsBeforeCompaction")).isEqualTo((long) fragmentsBefore);
    assertThat(gauge(metrics, "lanceFragmentsAfterCompaction")).isEqualTo(1L);
    assertThat(gauge(metrics, "lanceLastCompactionVersion"))
        .isEqualTo(LanceTestTables.latestVersion(table));
    assertThat((Long) gauge(metrics, "lanceLastCompactionDurationMs")).isNotNegative();
    assertThat(count(metrics, "lanceCompactionPlans")).isEqualTo(1);
    assertThat(count(metrics, "lanceRewriteTasks")).isPositive();
    assertThat(count(metrics, "lanceRewriteFailures")).isZero();
    assertThat(Files.exists(orphan)).isFalse();
  }

  @Test
  void countsPreemptedRewrites() throws Exception {
    String table = dir.resolve("t").toString();
    createStable(table);
    append(table, 0, 400, 4);

    JobID job = pass(table, new DeletingRewrite(config(table)));

    Map<String, Metric> metrics = REPORTER.findMetrics(job, "lance");
    assertThat(count(metrics, "lanceCompactionConflicts")).isEqualTo(1);
    assertThat(count(metrics, "lanceCompactionsCommitted")).isZero();
  }

  private static CompactionConfig config(String table) {
    return CompactionConfig.from(
        Configuration.fromMap(Map.of("path", table, "compaction.cleanup-older-than", "1 h")));
  }

  private static JobID pass(String table, RewriteFunction rewrite) throws Exception {
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setParallelism(1);
    CompactionTopology.add(
        env.fromData(TypeInformation.of(PlanRequest.class), PlanRequest.PASS),
        config(table),
        null,
        rewrite);
    return env.execute().getJobID();
  }

  private static long count(Map<String, Metric> metrics, String name) {
    return metrics.entrySet().stream()
        .filter(e -> e.getKey().endsWith("." + name))
        .mapToLong(e -> ((Counter) e.getValue()).getCount())
        .sum();
  }

  private static Object gauge(Map<String, Metric> metrics, String name) {
    return metrics.entrySet().stream()
        .filter(e -> e.getKey().endsWith("." + name))
        .map(e -> ((Gauge<?>) e.getValue()).getValue())
        .findFirst()
        .orElseThrow(() -> new AssertionError("no metric " + name + " in " + metrics.keySet()));
  }

  /** Deletes a row of the fragments it is about to rewrite: a concurrent delete. */
  private static final class DeletingRewrite extends RewriteFunction {
    private static final long serialVersionUID = 1L;
    private final String uri;

    DeletingRewrite(CompactionConfig config) {
      super(config.dataset());
      this.uri = config.dataset().uri();
    }

    @Override
    protected RewriteResult execute(CompactionTask task, Dataset dataset) {
      LineageTables.delete(uri, "id = 5");
      return super.execute(task, dataset);
    }
  }
}
