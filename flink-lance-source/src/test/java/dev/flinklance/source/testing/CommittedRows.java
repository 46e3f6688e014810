package dev.flinklance.source.testing;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeHint;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.table.data.RowData;

/**
 * An exactly-once test sink for any rows, changelogs too (the Lance sink takes no retractions): a
 * map operator at parallelism 1 that keeps the rows of each checkpoint in its state and publishes
 * them, in order, once the checkpoint has completed, so that rows replayed after a failure are
 * published once. A restored operator publishes what its (completed) checkpoint holds, unless that
 * was published already.
 */
public final class CommittedRows
    implements MapFunction<RowData, RowData>, CheckpointedFunction, CheckpointListener {
  private static final long serialVersionUID = 1L;
  private static final Map<String, List<String>> PUBLISHED = new ConcurrentHashMap<>();
  private static final Map<String, Set<Long>> PUBLISHED_CHECKPOINTS = new ConcurrentHashMap<>();

  private final String token;
  private final Function<RowData, String> format;
  private transient List<String> sinceCheckpoint;
  private transient TreeMap<Long, List<String>> pending;
  private transient ListState<Tuple2<Long, List<String>>> state;

  /**
   * @param format how a row is published; must be serializable
   */
  public <F extends Function<RowData, String> & java.io.Serializable> CommittedRows(
      String token, F format) {
    this.token = token;
    this.format = format;
  }

  /** The rows published so far, in order. */
  public static List<String> published(String token) {
    synchronized (PUBLISHED) {
      return List.copyOf(PUBLISHED.getOrDefault(token, List.of()));
    }
  }

  @Override
  public RowData map(RowData row) {
    sinceCheckpoint.add(format.apply(row));
    return row;
  }

  @Override
  public void snapshotState(FunctionSnapshotContext context) throws Exception {
    pending.put(context.getCheckpointId(), sinceCheckpoint);
    sinceCheckpoint = new ArrayList<>();
    List<Tuple2<Long, List<String>>> entries = new ArrayList<>();
    pending.forEach((id, rows) -> entries.add(Tuple2.of(id, rows)));
    state.update(entries);
  }

  @Override
  public void initializeState(FunctionInitializationContext context) throws Exception {
    sinceCheckpoint = new ArrayList<>();
    pending = new TreeMap<>();
    state =
        context
            .getOperatorStateStore()
            .getListState(
                new ListStateDescriptor<>(
                    "rows", TypeInformation.of(new TypeHint<Tuple2<Long, List<String>>>() {})));
    if (context.isRestored()) {
      for (Tuple2<Long, List<String>> entry : state.get()) {
        pending.put(entry.f0, entry.f1);
      }
      publishUpTo(Long.MAX_VALUE); // the restored checkpoint completed
    }
  }

  @Override
  public void notifyCheckpointComplete(long checkpointId) {
    publishUpTo(checkpointId);
  }

  private void publishUpTo(long checkpointId) {
    synchronized (PUBLISHED) {
      Set<Long> done = PUBLISHED_CHECKPOINTS.computeIfAbsent(token, t -> new HashSet<>());
      List<String> out =
          PUBLISHED.computeIfAbsent(token, t -> Collections.synchronizedList(new ArrayList<>()));
      var ready = pending.headMap(checkpointId, true);
      ready.forEach(
          (id, rows) -> {
            if (done.add(id)) {
              out.addAll(rows);
            }
          });
      ready.clear();
    }
  }
}
