package dev.flinklance.compactor.operator;

import dev.flinklance.access.TableLoader;
import dev.flinklance.access.TableRef;
import dev.flinklance.compactor.plan.RewriteTask;
import dev.flinklance.compactor.rewrite.OutcomeFiles;
import dev.flinklance.compactor.rewrite.RewriteOutcome;
import dev.flinklance.concurrent.NativeWorkers;
import java.util.List;
import java.util.concurrent.ExecutorService;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.streaming.api.functions.async.ResultFuture;
import org.apache.flink.streaming.api.functions.async.RichAsyncFunction;
import org.lance.Dataset;
import org.lance.compaction.CompactionTask;
import org.lance.compaction.RewriteResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A rewrite worker: runs Lance compaction tasks (reads the task's fragments at the plan's version,
 * writes new fragment files, commits nothing; a large rewrite's metadata goes to an {@link
 * OutcomeFiles outcome file}). Runs inside Flink's async operator, so tasks in flight are kept in
 * checkpoints and run again after a restore, and a rewrite never holds back a checkpoint. A failed
 * or timed-out rewrite becomes a failed outcome: the committer leaves its fragments for a later
 * plan, and the job carries on.
 */
@Internal
public class RewriteFunction extends RichAsyncFunction<RewriteTask, RewriteOutcome>
    implements ResultTypeQueryable<RewriteOutcome> {
  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(RewriteFunction.class);

  private final TableRef table;
  private transient ExecutorService executor;
  private transient TableLoader handle;
  private transient RewriteMetrics metrics;
  private transient OutcomeFiles outcomeFiles;

  public RewriteFunction(TableRef table) {
    this.table = table;
  }

  @Override
  public void open(org.apache.flink.api.common.functions.OpenContext context) {
    executor = NativeWorkers.singleThread("lance-rewrite-" + table.uri());
    handle = new TableLoader(table);
    metrics = new RewriteMetrics(getRuntimeContext().getMetricGroup(), table);
    outcomeFiles = new OutcomeFiles(table);
  }

  @Override
  public void asyncInvoke(RewriteTask task, ResultFuture<RewriteOutcome> future) throws Exception {
    if (task.isEmptyPlan()) {
      future.complete(List.of(RewriteOutcome.emptyPlan(task.plan())));
      return;
    }
    executor.execute(() -> future.complete(List.of(rewrite(task))));
  }

  private RewriteOutcome rewrite(RewriteTask task) {
    long start = System.nanoTime();
    try {
      RewriteResult result = execute(task.task(), handle.at(task.task().getReadVersion()));
      metrics.rewritten((System.nanoTime() - start) / 1_000_000);
      LOG.info(
          "Rewrote fragments {} of {} into {} new fragments in {} ms ({})",
          result.getOriginalFragments().stream().map(f -> f.getId()).toList(),
          table,
          result.getNewFragments().size(),
          (System.nanoTime() - start) / 1_000_000,
          task);
      return outcomeFiles.hold(RewriteOutcome.rewritten(task.plan(), task.index(), result));
    } catch (Exception e) { // Lance also throws undeclared IOExceptions from native code
      metrics.failed();
      LOG.warn(
          "Rewrite failed for {} of {}; its fragments are planned again later", task, table, e);
      return RewriteOutcome.failed(task.plan(), task.index(), String.valueOf(e.getMessage()));
    }
  }

  /** Runs one Lance task; tests override it to inject failures. */
  protected RewriteResult execute(CompactionTask task, Dataset dataset) {
    return task.execute(dataset);
  }

  @Override
  public TypeInformation<RewriteOutcome> getProducedType() {
    return RewriteOutcome.typeInfo();
  }

  @Override
  public void timeout(RewriteTask task, ResultFuture<RewriteOutcome> future) {
    metrics.failed();
    LOG.warn("Rewrite timed out for {} of {}; its fragments are planned again later", task, table);
    future.complete(
        List.of(
            RewriteOutcome.failed(task.plan(), task.index(), "timed out (compaction.timeout)")));
  }

  @Override
  public void close() throws Exception {
    if (executor != null && !NativeWorkers.stop(executor, NativeWorkers.STOP_WAIT)) {
      LOG.warn("A rewrite of {} is still running; leaving its dataset open", table);
      return;
    }
    if (handle != null) {
      handle.close();
    }
    if (outcomeFiles != null) {
      outcomeFiles.close();
    }
  }
}
