package dev.flinklance.sink.testing;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.table.data.RowData;

/**
 * Failure injection for MiniCluster tests. Operators run in the test's JVM, so a static map keyed
 * by a per-test token tells them whether their one failure has happened yet; each fires once.
 */
public final class Failures {
  private static final Map<String, AtomicBoolean> FIRED = new ConcurrentHashMap<>();
  private static final Map<String, AtomicLong> ARMED_AT = new ConcurrentHashMap<>();

  private Failures() {}

  /** True exactly once per token: the first caller gets to fail. */
  public static boolean fireOnce(String token) {
    return FIRED.computeIfAbsent(token, t -> new AtomicBoolean()).compareAndSet(false, true);
  }

  public static boolean fired(String token) {
    return FIRED.computeIfAbsent(token, t -> new AtomicBoolean()).get();
  }

  /**
   * Passes records through; once checkpoint {@code afterCheckpoint} (or a later one) has completed,
   * the next record fails the task, once.
   */
  public static final class FailAfterCheckpoint
      implements MapFunction<RowData, RowData>, CheckpointListener {
    private static final long serialVersionUID = 1L;
    private final String token;
    private final long afterCheckpoint;

    public FailAfterCheckpoint(String token, long afterCheckpoint) {
      this.token = token;
      this.afterCheckpoint = afterCheckpoint;
    }

    @Override
    public RowData map(RowData row) {
      AtomicLong armed = ARMED_AT.get(token);
      if (armed != null && fireOnce(token)) {
        throw new RuntimeException("Injected failure after checkpoint " + armed.get());
      }
      return row;
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
      if (checkpointId >= afterCheckpoint) {
        ARMED_AT.putIfAbsent(token, new AtomicLong(checkpointId));
      }
    }
  }

  /**
   * Declines checkpoint {@code checkpoint} (or the first one after it), once, from its snapshot.
   * Chained in front of the sink writer, it snapshots after the writer has already flushed for that
   * checkpoint and sent its write results downstream.
   */
  public static final class DeclineCheckpoint
      implements MapFunction<RowData, RowData>, CheckpointedFunction {
    private static final long serialVersionUID = 1L;
    private final String token;
    private final long checkpoint;

    public DeclineCheckpoint(String token, long checkpoint) {
      this.token = token;
      this.checkpoint = checkpoint;
    }

    @Override
    public RowData map(RowData row) {
      return row;
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
