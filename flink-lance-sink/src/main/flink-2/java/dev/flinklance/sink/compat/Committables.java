package dev.flinklance.sink.compat;

import org.apache.flink.annotation.Internal;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessage;
import org.apache.flink.streaming.api.connector.sink2.CommittableSummary;

/**
 * The committable messages of a pre-commit topology, whose checkpoint id and summary Flink 2.0
 * changed (1.20: an id that may be end-of-input, a count of pending committables).
 */
@Internal
public final class Committables {
  private Committables() {}

  public static long checkpointId(CommittableMessage<?> message) {
    return message.getCheckpointId();
  }

  /** A subtask's summary of the committables it emits for a checkpoint, none failed. */
  public static <T> CommittableSummary<T> summary(
      int subtask, int subtasks, long checkpointId, int committables) {
    return new CommittableSummary<>(subtask, subtasks, checkpointId, committables, 0);
  }
}
