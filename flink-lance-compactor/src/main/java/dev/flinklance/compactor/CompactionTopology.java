package dev.flinklance.compactor;

import dev.flinklance.compactor.commit.CompactionCommitter;
import dev.flinklance.compactor.commit.CompactionSummary;
import dev.flinklance.compactor.plan.CompactionPlanner;
import dev.flinklance.compactor.plan.PlanRequest;
import dev.flinklance.compactor.plan.RewriteTask;
import dev.flinklance.compactor.rewrite.RewriteFunction;
import java.util.concurrent.TimeUnit;
import org.apache.flink.annotation.Internal;
import org.apache.flink.annotation.VisibleForTesting;
import org.apache.flink.streaming.api.datastream.AsyncDataStream;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;

/**
 * The compaction pipeline, the same in the sink's job and in the standalone job:
 *
 * <pre>
 * requests ─global─► planner (1) ─rebalance─► rewrite workers (n, async) ─global─► committer (1)
 * </pre>
 */
@Internal
public final class CompactionTopology {
  public static final String PLANNER_NAME = "Lance Compaction Planner";
  public static final String WORKERS_NAME = "Lance Rewrite Workers";
  public static final String COMMITTER_NAME = "Lance Compaction Committer";

  /**
   * Tasks a worker subtask queues. Larger than any plan ({@code Planning.MAX_TASKS_PER_PLAN}), so
   * the worker never blocks its input: a full async queue would hold back checkpoint barriers.
   */
  private static final int WORKER_QUEUE_CAPACITY = 4096;

  private CompactionTopology() {}

  /**
   * @param uidPrefix prefix of the operators' uids ("" for none), or null to give them no uids
   */
  public static SingleOutputStreamOperator<CompactionSummary> add(
      DataStream<PlanRequest> requests, CompactionConfig config, String uidPrefix) {
    return add(requests, config, uidPrefix, new RewriteFunction(config.dataset()));
  }

  @VisibleForTesting
  public static SingleOutputStreamOperator<CompactionSummary> add(
      DataStream<PlanRequest> requests,
      CompactionConfig config,
      String uidPrefix,
      RewriteFunction rewrite) {
    SingleOutputStreamOperator<RewriteTask> tasks =
        requests
            .global()
            .transform(PLANNER_NAME, RewriteTask.typeInfo(), CompactionPlanner.factory(config))
            .setParallelism(1)
            .setMaxParallelism(1);
    var outcomes =
        AsyncDataStream.unorderedWait(
                tasks.rebalance(),
                rewrite,
                config.timeout().toMillis(),
                TimeUnit.MILLISECONDS,
                WORKER_QUEUE_CAPACITY)
            .name(WORKERS_NAME);
    config.parallelism().ifPresent(outcomes::setParallelism);
    SingleOutputStreamOperator<CompactionSummary> summaries =
        outcomes
            .global()
            .transform(
                COMMITTER_NAME, CompactionSummary.typeInfo(), CompactionCommitter.factory(config))
            .setParallelism(1)
            .setMaxParallelism(1);
    if (uidPrefix != null) {
      tasks.uid(uidPrefix + PLANNER_NAME);
      outcomes.uid(uidPrefix + WORKERS_NAME);
      summaries.uid(uidPrefix + COMMITTER_NAME);
    }
    return summaries;
  }
}
