package dev.flinklance.compactor.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flinklance.compactor.CompactionConfig;
import dev.flinklance.compactor.LanceCompactionJob;
import dev.flinklance.compactor.commit.CompactionSummary;
import dev.flinklance.compactor.commit.CompactionSummary.Outcome;
import dev.flinklance.compactor.operator.CompactionTopology;
import dev.flinklance.compactor.operator.RewriteFunction;
import dev.flinklance.compactor.plan.PlanRequest;
import dev.flinklance.index.MemWal;
import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.LogCapture;
import dev.flinklance.testing.TestClusters;
import dev.flinklance.testing.TestRows;
import dev.flinklance.testing.TestTables;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.lance.Dataset;
import org.lance.compaction.CompactionTask;
import org.lance.compaction.RewriteResult;

/**
 * Issue 28: a table another client set up with Lance's MemWAL, which lance-core 7.0.0 aborts the
 * JVM compacting (a native panic, exit 134). Before the fix these tests took the test JVM down.
 */
class MemWalTableITCase {
  @RegisterExtension static final MiniClusterExtension CLUSTER = TestClusters.withFlinksRestarts();

  @TempDir Path dir;
  private String table;

  @BeforeEach
  void createTable() {
    table = dir.resolve("memwal").toString();
    TestTables.createWithKey(table, TestRows.ROW_TYPE, "id");
    TestTables.append(table, TestRows.ROW_TYPE, rows(120), 10); // 12 small fragments
  }

  @Test
  void aPassLeavesATableWithAMemWalAloneAndSaysWhyOnce() throws Exception {
    TestTables.initializeMemWal(table);
    long version = LanceTestTables.latestVersion(table);

    List<CompactionSummary> summaries;
    String log;
    try (LogCapture capture = LogCapture.start()) {
      summaries = compactOnce();
      log = capture.text();
    }

    assertThat(summaries)
        .extracting(CompactionSummary::outcome)
        .containsOnly(Outcome.NOTHING_TO_COMPACT);
    assertThat(log).containsOnlyOnce("it has a MemWAL (" + MemWal.INDEX + " index)");
    assertThat(LanceTestTables.latestVersion(table)).isEqualTo(version);
    assertThat(LanceTestTables.fragmentCount(table)).isEqualTo(12);
    assertThat(LanceTestTables.readLongs(table, "id"))
        .containsExactlyInAnyOrderElementsOf(LongStream.range(0, 120).boxed().toList());
  }

  @Test
  void aPlanOvertakenByAMemWalIsNotCommitted() throws Exception {
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setParallelism(1);
    CompactionConfig config =
        CompactionConfig.from(
            Configuration.fromMap(Map.of("path", table, "compaction.cleanup-older-than", "1 h")));
    CompactionTopology.add(
        env.fromData(TypeInformation.of(PlanRequest.class), PlanRequest.PASS),
        config,
        null,
        new MemWalDuringRewrite(config));

    try (LogCapture capture = LogCapture.start()) {
      env.execute();
      assertThat(capture.text()).contains("the table got a MemWAL");
    }

    assertThat(LanceTestTables.commits(table))
        .as("no Rewrite after the MemWAL")
        .extracting(LanceTestTables.Commit::operation)
        .doesNotContain("Rewrite", LanceTestTables.UNREADABLE);
    assertThat(LanceTestTables.fragmentCount(table)).isEqualTo(12);
    assertThat(LanceTestTables.readLongs(table, "id"))
        .containsExactlyInAnyOrderElementsOf(LongStream.range(0, 120).boxed().toList());
  }

  private List<CompactionSummary> compactOnce() throws Exception {
    Configuration options = new Configuration();
    options.setString("path", table);
    options.setString("compaction.cleanup-older-than", "0 s");
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setParallelism(1);
    return LanceCompactionJob.compactOnce(env, options);
  }

  private static List<RowData> rows(long count) {
    return LongStream.range(0, count).mapToObj(TestRows::row).toList();
  }

  /** Another client sets up a MemWAL while the pass rewrites. */
  private static final class MemWalDuringRewrite extends RewriteFunction {
    private static final long serialVersionUID = 1L;
    private final String uri;

    MemWalDuringRewrite(CompactionConfig config) {
      super(config.dataset());
      this.uri = config.dataset().uri();
    }

    @Override
    protected RewriteResult execute(CompactionTask task, Dataset dataset) {
      RewriteResult result = super.execute(task, dataset);
      if (!hasMemWal()) {
        TestTables.initializeMemWal(uri);
      }
      return result;
    }

    private boolean hasMemWal() {
      try (BufferAllocator allocator = new RootAllocator();
          Dataset latest = Dataset.open(uri, allocator)) {
        return MemWal.isOn(latest);
      }
    }
  }
}
