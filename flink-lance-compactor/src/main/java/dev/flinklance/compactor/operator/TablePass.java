package dev.flinklance.compactor.operator;

import dev.flinklance.access.TableLoader;
import dev.flinklance.access.TableRef;
import dev.flinklance.compactor.CompactionConfig;
import dev.flinklance.compactor.commit.CompactionSummary;
import dev.flinklance.compactor.commit.PlanCompletion;
import dev.flinklance.compactor.plan.Planning;
import dev.flinklance.files.TableFiles;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.lance.Dataset;
import org.lance.compaction.CompactionTask;
import org.lance.compaction.RewriteResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One compaction pass over one table, in the calling thread: a look at the table, and when a
 * trigger fires, a plan, its rewrites and their {@link PlanCompletion}. The single-table pipeline
 * spreads these over a planner, rewrite workers and a committer with state in every checkpoint; a
 * table among hundreds gets them in one go and no state: a pass cut short by a failure is planned
 * again; the files its rewrites wrote are referenced by no version (Lance's cleanup removes such
 * files once they are 7 days old).
 */
final class TablePass {
  private static final Logger LOG = LoggerFactory.getLogger(TablePass.class);

  /**
   * What a plan's completion did.
   *
   * @param sideFilesDeleted lineage side files the cleanup deleted
   */
  record Finished(CompactionSummary summary, int sideFilesDeleted) {}

  /**
   * @param evaluation the look at the table, null if the table is gone
   * @param finished the plan's completion, null if nothing was planned
   */
  record Result(Planning.Evaluation evaluation, Finished finished) {
    boolean fired() {
      return evaluation != null && evaluation.fired();
    }
  }

  private TablePass() {}

  static Result run(
      TableRef table,
      CompactionConfig config,
      long commitsSinceLast,
      long millisSinceLast,
      long nowMillis)
      throws IOException {
    try (TableLoader handle = new TableLoader(table)) {
      Optional<Dataset> latest = handle.latestIfExists();
      if (latest.isEmpty()) {
        return new Result(null, null);
      }
      Planning.Evaluation evaluation =
          new Planning(config)
              .evaluate(
                  latest.get(), List.of(), false, commitsSinceLast, millisSinceLast, nowMillis);
      Planning.Planned planned = evaluation.planned();
      if (planned == null) {
        return new Result(evaluation, null);
      }
      List<RewriteResult> rewritten = new ArrayList<>();
      int failed = 0;
      for (CompactionTask task : planned.tasks()) {
        try {
          rewritten.add(task.execute(handle.at(task.getReadVersion())));
        } catch (Exception e) { // Lance also throws undeclared IOExceptions from native code
          failed++;
          LOG.warn(
              "Rewrite of fragments {} of {} failed; they are planned again later",
              task.getTaskData().getFragments().stream().map(f -> f.getId()).toList(),
              table,
              e);
        }
      }
      Optional<TableFiles> sideFiles = TableFiles.of(table);
      try {
        PlanCompletion completion = new PlanCompletion(config, sideFiles);
        CompactionSummary summary =
            completion.commit(handle, planned.ref(), rewritten, failed, false);
        return new Result(evaluation, new Finished(summary, completion.cleanUp(handle)));
      } finally {
        sideFiles.ifPresent(TableFiles::close);
      }
    }
  }
}
