package dev.flinklance.iceberg;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.state.CheckpointListener;

/**
 * Passes the record numbers on, chained to the source, and notes when things happened in the job:
 * when the first and the last record left the source (so that a rate-limited run shows whether the
 * source held its rate, apart from the job's start and end), and when each checkpoint completed:
 * the wall-clock time at which this operator is told, the same notification on which each sink's
 * committer commits. A job of either sink carries it in the same place, so both sinks are timed
 * from the same events. The times go to static fields because the MiniCluster runs the job in this
 * JVM, and one job runs at a time; they read {@link System#currentTimeMillis()}, the clock Lance's
 * and Iceberg's commit timestamps come from too.
 */
final class JobTimes implements MapFunction<Long, Long>, CheckpointListener {
  private static final long serialVersionUID = 1L;

  private static final Map<Long, Long> COMPLETED = new ConcurrentHashMap<>();
  private static volatile long firstRecord;
  private static volatile long lastRecord;

  /** Forgets the previous job's times; call before running the next job. */
  static void clear() {
    COMPLETED.clear();
    firstRecord = 0;
    lastRecord = 0;
  }

  /** When each checkpoint of the last job completed, in milliseconds since the epoch, by id. */
  static Map<Long, Long> checkpointCompletions() {
    return Map.copyOf(COMPLETED);
  }

  /** The records the last job's source sent, per second from its first record to its last. */
  static double sentPerSecond(long records) {
    return records * 1000.0 / Math.max(lastRecord - firstRecord, 1);
  }

  @Override
  public Long map(Long number) {
    // one source subtask calls this: no race on the fields
    long now = System.currentTimeMillis();
    if (firstRecord == 0) {
      firstRecord = now;
    }
    lastRecord = now;
    return number;
  }

  @Override
  public void notifyCheckpointComplete(long checkpointId) {
    COMPLETED.putIfAbsent(checkpointId, System.currentTimeMillis());
  }
}
