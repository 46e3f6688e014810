package dev.flinklance.testing;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;

/**
 * Failure injection for MiniCluster tests. Operators run in the test's JVM, so a static map keyed
 * by a per-test token tells them whether their one failure has happened yet; each fires once.
 */
public final class Failures {
  private static final Map<String, AtomicBoolean> FIRED = new ConcurrentHashMap<>();
  private static final Map<String, Long> ARMED_AT = new ConcurrentHashMap<>();

  private Failures() {}

  /** True exactly once per token: the first caller gets to fail. */
  public static boolean fireOnce(String token) {
    return FIRED.computeIfAbsent(token, t -> new AtomicBoolean()).compareAndSet(false, true);
  }

  public static boolean fired(String token) {
    return FIRED.computeIfAbsent(token, t -> new AtomicBoolean()).get();
  }

  /** Passes records through; fails once, at or after checkpoint {@code checkpoint}. */
  private abstract static class Injector<T> implements MapFunction<T, T> {
    private static final long serialVersionUID = 1L;
    final String token;
    final long checkpoint;

    Injector(String token, long checkpoint) {
      this.token = token;
      this.checkpoint = checkpoint;
    }

    @Override
    public T map(T record) {
      return record;
    }
  }

  /** Once checkpoint {@code checkpoint} (or a later one) has completed, fails the next record. */
  public static final class FailAfterCheckpoint<T> extends Injector<T>
      implements CheckpointListener {
    private static final long serialVersionUID = 1L;

    public FailAfterCheckpoint(String token, long checkpoint) {
      super(token, checkpoint);
    }

    @Override
    public T map(T record) {
      Long armedAt = ARMED_AT.get(token);
      if (armedAt != null && fireOnce(token)) {
        throw new RuntimeException("Injected failure after checkpoint " + armedAt);
      }
      return record;
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
      if (checkpointId >= checkpoint) {
        ARMED_AT.putIfAbsent(token, checkpointId);
      }
    }
  }

  /**
   * Declines checkpoint {@code checkpoint} (or the first one after it), once, from its snapshot.
   * Chained in front of the sink writer, it snapshots after the writer has already flushed for that
   * checkpoint and sent its write results downstream.
   */
  public static final class DeclineCheckpoint<T> extends Injector<T>
      implements CheckpointedFunction {
    private static final long serialVersionUID = 1L;

    public DeclineCheckpoint(String token, long checkpoint) {
      super(token, checkpoint);
    }

    @Override
    public void snapshotState(FunctionSnapshotContext context) {
      if (context.getCheckpointId() >= checkpoint && fireOnce(token)) {
        throw new RuntimeException("Injected decline of checkpoint " + context.getCheckpointId());
      }
    }

    @Override
    public void initializeState(FunctionInitializationContext context) {}
  }
}
