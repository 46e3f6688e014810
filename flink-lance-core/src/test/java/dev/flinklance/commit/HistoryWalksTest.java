package dev.flinklance.commit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.TestFragments;
import dev.flinklance.testing.TestTables;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.CommitBuilder;
import org.lance.Dataset;
import org.lance.FragmentMetadata;
import org.lance.Transaction;
import org.lance.compaction.Compaction;
import org.lance.compaction.CompactionOptions;
import org.lance.compaction.CompactionPlan;
import org.lance.compaction.CompactionTask;
import org.lance.compaction.RewriteResult;
import org.lance.operation.Append;

/**
 * Reading stamps and rewrites back from a table's history, also across the versions whose
 * transaction lance-core 7.0.0 cannot read: a compaction of an indexed table (its Rewrite carries
 * the rewritten indexes, and {@code readTransaction} fails with "Invalid number or type of
 * arguments passed to java method").
 */
class HistoryWalksTest {
  @TempDir Path dir;

  @Test
  void theWalkGoesPastACompactionOfAnIndexedTable() throws Exception {
    String uri = dir.resolve("t").toString();
    TestFragments.createTable(uri);
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = Dataset.open(uri, allocator)) {
      commit(dataset, new CommitStamp("u", "run-1", 1, 1, "job"), TestFragments.write(uri, 1, 2));
      commit(dataset, new CommitStamp("u", "run-1", 2, 2, "job"), TestFragments.write(uri, 3, 4));
      TestTables.createScalarIndex(uri, "id");
      dataset.checkoutLatest();
      long beforeCompaction = dataset.version();
      List<RewriteResult> rewritten = compact(dataset);
      Compaction.commitCompaction(dataset, rewritten, CompactionOptions.builder().build());
      dataset.checkoutLatest();
      assertThat(LanceTestTables.commits(uri))
          .as("the compaction's transaction cannot be read")
          .extracting(LanceTestTables.Commit::operation)
          .endsWith("ReserveFragments", LanceTestTables.UNREADABLE);

      assertThat(RunProgress.of(dataset, "run-1", 1, 100)).isEqualTo(new RunProgress.Landed(2, 3));
      Set<String> newFiles = new HashSet<>();
      rewritten.forEach(
          r ->
              r.getNewFragments()
                  .forEach(f -> f.getFiles().forEach(d -> newFiles.add(d.getPath()))));
      assertThat(RewriteHistory.find(dataset, beforeCompaction, newFiles))
          .hasValue(dataset.version());
      assertThat(RewriteHistory.find(dataset, beforeCompaction, Set.of("other.lance"))).isEmpty();
    }
  }

  private static void commit(Dataset dataset, CommitStamp stamp, List<FragmentMetadata> fragments)
      throws Exception {
    try (Transaction transaction =
            new Transaction.Builder()
                .readVersion(dataset.version())
                .operation(Append.builder().fragments(fragments).build())
                .transactionProperties(stamp.toProperties())
                .build();
        Dataset ignored = new CommitBuilder(dataset).execute(transaction)) {
      dataset.checkoutLatest();
    }
  }

  private static List<RewriteResult> compact(Dataset dataset) {
    CompactionPlan plan = Compaction.planCompaction(dataset, CompactionOptions.builder().build());
    List<RewriteResult> results = new ArrayList<>();
    for (CompactionTask task : plan.getCompactionTasks()) {
      results.add(task.execute(dataset));
    }
    assertThat(results).isNotEmpty();
    return results;
  }
}
