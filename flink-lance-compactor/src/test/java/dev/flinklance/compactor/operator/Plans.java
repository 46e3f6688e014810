package dev.flinklance.compactor.operator;

import dev.flinklance.access.LanceDatasetOptions;
import dev.flinklance.compactor.CompactionConfig;
import dev.flinklance.compactor.plan.Planning;
import dev.flinklance.compactor.plan.RewriteTask;
import dev.flinklance.compactor.rewrite.RewriteOutcome;
import dev.flinklance.compactor.testing.LineageTables;
import dev.flinklance.testing.TestRows;
import dev.flinklance.testing.TestTables;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.LongStream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.configuration.Configuration;
import org.lance.Dataset;
import org.lance.compaction.CompactionTask;

/**
 * Configs, plans and rewrites for the compaction operators' tests: plans made by the planner's own
 * {@link Planning} of a pass, their tasks run with plain Lance (what a rewrite worker does).
 */
final class Plans {
  private Plans() {}

  /**
   * @param options {@code compaction.*} keys and values, alternating
   */
  static CompactionConfig config(String uri, String... options) {
    Configuration conf = new Configuration();
    conf.set(LanceDatasetOptions.PATH, uri);
    for (int i = 0; i < options.length; i += 2) {
      conf.setString(options[i], options[i + 1]);
    }
    return CompactionConfig.from(conf);
  }

  /**
   * Creates a stable-row-id table of fragments of 50, 50, 200, 50 and 50 rows: two runs of small
   * fragments, which a target of 100 rows per fragment makes a plan of two tasks.
   *
   * @return the config of that target
   */
  static CompactionConfig twoRunsOfSmallFragments(String uri) {
    LineageTables.createStable(uri);
    LineageTables.append(uri, 0, 100, 2);
    LineageTables.append(uri, 100, 200, 1);
    LineageTables.append(uri, 300, 100, 2);
    return config(uri, "compaction.target-rows-per-fragment", "100");
  }

  /**
   * Creates a table that declares primary key {@code id} (what Lance's MemWAL needs) with ids 0 to
   * 119 in twelve fragments.
   */
  static void twelveSmallFragmentsWithAKey(String uri) {
    TestTables.createWithKey(uri, TestRows.ROW_TYPE, "id");
    TestTables.append(
        uri, TestRows.ROW_TYPE, LongStream.range(0, 120).mapToObj(TestRows::row).toList(), 10);
  }

  /** The tasks of a standalone pass's plan of the table as it is now. */
  static List<RewriteTask> plan(CompactionConfig config) {
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = config.dataset().open(allocator)) {
      Planning.Planned planned =
          new Planning(config).evaluate(dataset, List.of(), true, 0, 0, 0).planned();
      List<RewriteTask> tasks = new ArrayList<>();
      for (CompactionTask task : planned.tasks()) {
        tasks.add(new RewriteTask(planned.ref(), tasks.size(), task));
      }
      return tasks;
    }
  }

  /** Runs every task on the table at its plan's version: nothing is committed. */
  static List<RewriteOutcome> rewrite(CompactionConfig config, List<RewriteTask> tasks) {
    List<RewriteOutcome> outcomes = new ArrayList<>();
    try (BufferAllocator allocator = new RootAllocator()) {
      for (RewriteTask task : tasks) {
        try (Dataset dataset = config.dataset().open(allocator, task.task().getReadVersion())) {
          outcomes.add(
              RewriteOutcome.rewritten(task.plan(), task.index(), task.task().execute(dataset)));
        }
      }
    }
    return outcomes;
  }
}
