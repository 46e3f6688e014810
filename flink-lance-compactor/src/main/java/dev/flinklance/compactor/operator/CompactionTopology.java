package dev.flinklance.compactor.operator;

import dev.flinklance.compactor.CompactionConfig;
import dev.flinklance.compactor.commit.CompactionSummary;
import dev.flinklance.compactor.plan.PlanRequest;
import dev.flinklance.compactor.plan.RewriteTask;
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
   * The operators' uids: fixed, since savepoints map the planner's, the workers' and the
   * committer's state by them, and apart from their display names, which may change. Each is its
   * pipeline's prefix and the operator's own part; both are what they were when the operators came
   * in (the display names of then).
   */
  public enum Uids {
    /** Behind a sink's committer; Flink prefixes these with the sink's uid. */
    IN_SINK(""),
    /** The standalone job ({@code LanceCompactionJob}). */
    STANDALONE("lance-compaction-job: ");

    private final String prefix;

    Uids(String prefix) {
      this.prefix = prefix;
    }

    public String planner() {
      return prefix + "Lance Compaction Planner";
    }

    public String workers() {
      return prefix + "Lance Rewrite Workers";
    }

    public String committer() {
      return prefix + "Lance Compaction Committer";
    }
  }

  /**
   * Tasks a worker subtask queues. Larger than any plan ({@code Planning.MAX_TASKS_PER_PLAN}), so
   * the worker never blocks its input: a full async queue would hold back checkpoint barriers.
   */
  private static final int WORKER_QUEUE_CAPACITY = 4096;

  private CompactionTopology() {}

  /**
   * @param uids the operators' uids, or null to give them none
   */
  public static SingleOutputStreamOperator<CompactionSummary> add(
      DataStream<PlanRequest> requests, CompactionConfig config, Uids uids) {
    return add(requests, config, uids, new RewriteFunction(config.dataset()));
  }

  @VisibleForTesting
  public static SingleOutputStreamOperator<CompactionSummary> add(
      DataStream<PlanRequest> requests,
      CompactionConfig config,
      Uids uids,
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
    if (uids != null) {
      tasks.uid(uids.planner());
      outcomes.uid(uids.workers());
      summaries.uid(uids.committer());
    }
    return summaries;
  }
}
