package dev.flinklance.compactor.commit;

import dev.flinklance.access.TableLoader;
import dev.flinklance.compactor.CompactionConfig;
import dev.flinklance.compactor.plan.PlanRef;
import dev.flinklance.files.TableFiles;
import dev.flinklance.index.MemWal;
import dev.flinklance.index.scalar.ScalarIndexUpkeep;
import dev.flinklance.index.vector.VectorIndexUpkeep;
import dev.flinklance.secrets.Secrets;
import java.io.IOException;
import java.util.List;
import java.util.Optional;
import org.apache.flink.annotation.Internal;
import org.lance.compaction.RewriteResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What follows a plan's rewrites on one table: their commit, the indexes brought up to date with
 * the new fragments, and version cleanup when configured, run after the commit by a pass over a
 * table ({@code TablePass}) and beside the commits by the committer.
 */
@Internal
public final class PlanCompletion {
  private static final Logger LOG = LoggerFactory.getLogger(PlanCompletion.class);

  private final CompactionCommit commit;
  private final Optional<VersionCleanup> cleanup;

  public PlanCompletion(CompactionConfig config, Optional<TableFiles> sideFiles) {
    this.commit = new CompactionCommit(config, sideFiles);
    this.cleanup =
        config
            .cleanupOlderThan()
            .map(age -> new VersionCleanup(age, config.sideFileMinAge(), sideFiles));
  }

  /**
   * The plan's commit, then its indexes brought up to date with the new fragments; a plan that
   * committed nothing leaves them as they are: the next plan that commits updates them.
   *
   * @param mayHaveLanded the plan may have committed before (see {@link CompactionCommit#commit})
   */
  public CompactionSummary commit(
      TableLoader table,
      PlanRef plan,
      List<RewriteResult> rewritten,
      int failedTasks,
      boolean mayHaveLanded)
      throws IOException {
    CompactionSummary summary =
        plan.taskCount() == 0
            ? nothingToCompact(plan)
            : commit.commit(table.latest(), plan, rewritten, failedTasks, mayHaveLanded);
    boolean changed = summary.outcome() != CompactionSummary.Outcome.NOTHING_COMMITTED;
    if (changed && !MemWal.isOn(table.latest())) { // describeIndices fails on it
      VectorIndexUpkeep.run(table.latest());
      ScalarIndexUpkeep.run(table.latest());
    }
    return summary;
  }

  /** Whether {@link #cleanUp} does anything: {@code compaction.cleanup-older-than} is set. */
  public boolean cleansUp() {
    return cleanup.isPresent();
  }

  /**
   * Version cleanup, when configured; its failure is logged and leaves the table as it was.
   *
   * @return lineage side files deleted
   */
  public int cleanUp(TableLoader table) {
    if (cleanup.isEmpty()) {
      return 0;
    }
    try {
      return cleanup.get().run(table.latest());
    } catch (Exception e) { // Lance also throws undeclared IOExceptions from native code
      LOG.warn("Cleanup of {} failed; it runs again after the next compaction", table.table(), e);
      table.reset();
      return 0;
    }
  }

  /** The summary of a plan whose commit failed: its fragments are planned again later. */
  public static CompactionSummary failed(PlanRef plan, int failedTasks, Exception failure) {
    return CompactionSummary.builder(
            plan.planId(), CompactionSummary.Outcome.FAILED, plan.fragmentsBefore())
        .tasksFailed(failedTasks)
        .failure(Secrets.redact(String.valueOf(failure.getMessage())))
        .build();
  }

  private static CompactionSummary nothingToCompact(PlanRef plan) {
    return CompactionSummary.builder(
            plan.planId(), CompactionSummary.Outcome.NOTHING_TO_COMPACT, plan.fragmentsBefore())
        .build();
  }
}
