package dev.flinklance.compactor.commit;

import dev.flinklance.access.LanceDatasetOptions;
import dev.flinklance.compactor.CompactionConfig;
import dev.flinklance.compactor.plan.PlanRef;
import dev.flinklance.files.TableFiles;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.configuration.Configuration;
import org.lance.Dataset;
import org.lance.compaction.Compaction;
import org.lance.compaction.CompactionOptions;
import org.lance.compaction.CompactionPlan;
import org.lance.compaction.CompactionTask;
import org.lance.compaction.RewriteResult;

/** Plans and rewrites with plain Lance, then commits through {@link CompactionCommit}. */
final class Rewrites {
  static final long TARGET_ROWS = 1_000_000;

  final PlanRef plan;
  final List<RewriteResult> results;

  private Rewrites(PlanRef plan, List<RewriteResult> results) {
    this.plan = plan;
    this.results = results;
  }

  static CompactionConfig config(String uri, Duration sideFileMinAge) {
    Configuration conf = new Configuration();
    conf.set(LanceDatasetOptions.PATH, uri);
    conf.setString("compaction.target-rows-per-fragment", Long.toString(TARGET_ROWS));
    conf.setString("compaction.side-file-min-age", sideFileMinAge.toMillis() + " ms");
    return CompactionConfig.from(conf);
  }

  static CompactionConfig config(String uri) {
    return config(uri, Duration.ofHours(1));
  }

  /** Plans the table's compaction and runs every task (nothing committed). */
  static Rewrites rewrite(String uri) {
    return rewrite(uri, TARGET_ROWS);
  }

  static Rewrites rewrite(String uri, long targetRows) {
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = Dataset.open().allocator(allocator).uri(uri).build()) {
      CompactionPlan plan =
          Compaction.planCompaction(
              dataset, CompactionOptions.builder().withTargetRowsPerFragment(targetRows).build());
      List<RewriteResult> results = new ArrayList<>();
      for (CompactionTask task : plan.getCompactionTasks()) {
        results.add(task.execute(dataset));
      }
      return new Rewrites(
          new PlanRef(
              "test-plan", plan.getReadVersion(), results.size(), dataset.getFragments().size()),
          results);
    }
  }

  CompactionSummary commit(String uri, boolean mayHaveLanded) throws IOException {
    CompactionConfig config = config(uri);
    return commit(config, TableFiles.of(config.dataset()), mayHaveLanded);
  }

  CompactionSummary commit(
      CompactionConfig config, Optional<TableFiles> sideFiles, boolean mayHaveLanded)
      throws IOException {
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = config.dataset().open(allocator)) {
      return new CompactionCommit(config, sideFiles)
          .commit(dataset, plan, results, 0, mayHaveLanded);
    } finally {
      sideFiles.ifPresent(TableFiles::close);
    }
  }

  static void spillEverything(String uri) {
    dev.flinklance.compactor.testing.LineageTables.setConfig(
        uri, Map.of("lance.row_lineage.spill", "true", "lance.row_lineage.inline_max_bytes", "16"));
  }
}
