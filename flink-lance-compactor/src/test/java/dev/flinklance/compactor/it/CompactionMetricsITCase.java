package dev.flinklance.compactor.it;

import static dev.flinklance.compactor.testing.LineageTables.append;
import static dev.flinklance.compactor.testing.LineageTables.createStable;
import static org.assertj.core.api.Assertions.assertThat;

import dev.flinklance.compactor.CompactionConfig;
import dev.flinklance.compactor.operator.CompactionTopology;
import dev.flinklance.compactor.operator.RewriteFunction;
import dev.flinklance.compactor.plan.PlanRequest;
import dev.flinklance.compactor.testing.LineageTables;
import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.TableMetrics;
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

    TableMetrics metrics = TableMetrics.of(REPORTER, job, table);
    long sideFileBytes = Files.size(Path.of(table).resolve(LineageTables.sideFiles(table).get(0)));
    assertThat(metrics.count("compactionsCommitted")).isEqualTo(1);
    assertThat(metrics.count("compactionsFailed")).isZero();
    assertThat(metrics.count("compactionConflicts")).isZero();
    assertThat(metrics.count("fragmentsRewritten")).isEqualTo(fragmentsBefore);
    assertThat(metrics.count("rowsRewritten")).isEqualTo(2_000);
    assertThat(metrics.count("bytesRewritten")).isPositive();
    assertThat(metrics.count("lineageBytesSpilled")).isEqualTo(sideFileBytes);
    assertThat(metrics.count("sideFilesDeleted")).isEqualTo(1);
    assertThat(metrics.gauges("fragmentsBeforeCompaction")).containsExactly((long) fragmentsBefore);
    assertThat(metrics.gauges("fragmentsAfterCompaction")).containsExactly(1L);
    assertThat(metrics.gauges("lastCompactionVersion"))
        .containsExactly(LanceTestTables.latestVersion(table));
    assertThat(metrics.gauges("lastCompactionDurationMs"))
        .singleElement()
        .satisfies(ms -> assertThat(ms).isNotNegative());
    assertThat(metrics.count("compactionPlans")).isEqualTo(1);
    assertThat(metrics.count("rewriteTasks")).isPositive();
    assertThat(metrics.count("rewriteFailures")).isZero();
    assertThat(Files.exists(orphan)).isFalse();

    // each operator's metrics in the group lance, keyed by the table
    assertThat(metrics.on(CompactionTopology.PLANNER_NAME).all())
        .extracting(TableMetrics.Reported::name)
        .containsExactlyInAnyOrder("compactionPlans", "compactionCandidates");
    assertThat(metrics.on(CompactionTopology.WORKERS_NAME).all())
        .extracting(TableMetrics.Reported::name)
        .containsExactlyInAnyOrder("rewriteTasks", "rewriteFailures", "lastRewriteDurationMs");
    assertThat(metrics.on(CompactionTopology.COMMITTER_NAME).all())
        .extracting(TableMetrics.Reported::name)
        .contains("compactionsCommitted", "lineageBytesSpilled", "lastCompactionVersion");
    assertThat(metrics.identifiers())
        .allSatisfy(id -> assertThat(id).contains(".lance.table." + table + "."));
    assertThat(TableMetrics.prefixedNames(REPORTER, job)).isEmpty();
  }

  @Test
  void countsPreemptedRewrites() throws Exception {
    String table = dir.resolve("t").toString();
    createStable(table);
    append(table, 0, 400, 4);

    JobID job = pass(table, new DeletingRewrite(config(table)));

    TableMetrics metrics = TableMetrics.of(REPORTER, job, table);
    assertThat(metrics.count("compactionConflicts")).isEqualTo(1);
    assertThat(metrics.count("compactionsCommitted")).isZero();
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
