package dev.flinklance.iceberg;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.state.CheckpointListener;

/**
 * Passes the record numbers on and notes when each checkpoint of the job completed: the wall-clock
 * time at which this operator is told, the same notification that tells each sink's committer to
 * commit. A job of either sink carries it in the same place (chained to the source), so both sinks'
 * commits are timed from the same event. The times go to a static map because the MiniCluster runs
 * the job in this JVM, and one job runs at a time; both sides read {@link
 * System#currentTimeMillis()}, as do Lance's and Iceberg's commit timestamps (same clock).
 */
final class CheckpointCompletions implements MapFunction<Long, Long>, CheckpointListener {
  private static final long serialVersionUID = 1L;

  private static final Map<Long, Long> COMPLETED = new ConcurrentHashMap<>();

  /** Forgets the previous job's checkpoints; call before running the next job. */
  static void clear() {
    COMPLETED.clear();
  }

  /** When each checkpoint of the last job completed, in milliseconds since the epoch, by id. */
  static Map<Long, Long> byCheckpoint() {
    return Map.copyOf(COMPLETED);
  }

  @Override
  public Long map(Long number) {
    return number;
  }

  @Override
  public void notifyCheckpointComplete(long checkpointId) {
    COMPLETED.putIfAbsent(checkpointId, System.currentTimeMillis());
  }
}
