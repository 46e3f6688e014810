package dev.flinklance.source.reader;

import dev.flinklance.source.LanceScan;
import dev.flinklance.source.enumerator.ReaderEvents;
import dev.flinklance.source.split.LanceSplit;
import dev.flinklance.source.split.LanceSplitState;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.base.source.reader.SingleThreadMultiplexSourceReaderBase;
import org.apache.flink.table.data.RowData;

/**
 * Asks the enumerator for a split, reads it, tells the enumerator it is done and asks for the next.
 * Every emitted row counts in its split's state, so a checkpoint records exactly how far each split
 * was read. At start it tells the enumerator which splits it holds from a restored checkpoint.
 */
@Internal
public final class LanceSourceReader
    extends SingleThreadMultiplexSourceReaderBase<RowData, RowData, LanceSplit, LanceSplitState> {
  private final List<LanceSplit> restored = new ArrayList<>();
  private final ReaderTable table;
  private boolean started;

  public LanceSourceReader(LanceScan scan, Configuration config, SourceReaderContext context) {
    this(config, context, new ReaderMetrics(context.metricGroup()), new ReaderTable(scan), scan);
  }

  private LanceSourceReader(
      Configuration config,
      SourceReaderContext context,
      ReaderMetrics metrics,
      ReaderTable table,
      LanceScan scan) {
    super(
        () -> new LanceSplitReader(scan, metrics, table),
        (row, output, state) -> {
          output.collect(row);
          state.rowEmitted();
        },
        config,
        context);
    this.table = table;
  }

  /** Before {@link #start()} the splits come from the reader's restored state. */
  @Override
  public void addSplits(List<LanceSplit> splits) {
    if (!started) {
      restored.addAll(splits);
    }
    super.addSplits(splits);
  }

  @Override
  public void start() {
    started = true;
    context.sendSourceEventToCoordinator(new ReaderEvents.Holding(restored));
    restored.clear();
    if (getNumberOfCurrentlyAssignedSplits() == 0) {
      context.sendSplitRequest();
    }
  }

  @Override
  protected void onSplitFinished(Map<String, LanceSplitState> finishedSplits) {
    context.sendSourceEventToCoordinator(
        new ReaderEvents.Finished(List.copyOf(finishedSplits.keySet())));
    context.sendSplitRequest();
  }

  /** The table last: the split readers' batches came from its allocator. */
  @Override
  public void close() throws Exception {
    try {
      super.close();
    } finally {
      table.close();
    }
  }

  @Override
  protected LanceSplitState initializedState(LanceSplit split) {
    return new LanceSplitState(split);
  }

  @Override
  protected LanceSplit toSplitType(String splitId, LanceSplitState state) {
    return state.toSplit();
  }
}
