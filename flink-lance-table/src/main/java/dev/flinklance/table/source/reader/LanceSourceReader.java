package dev.flinklance.table.source.reader;

import dev.flinklance.table.source.LanceScan;
import dev.flinklance.table.source.split.LanceSplit;
import dev.flinklance.table.source.split.LanceSplitState;
import java.util.Map;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.base.source.reader.SingleThreadMultiplexSourceReaderBase;
import org.apache.flink.table.data.RowData;

/**
 * Asks the enumerator for a fragment, reads it, asks for the next. Every emitted row counts in its
 * split's state, so a checkpoint records exactly how far each fragment was read.
 */
@Internal
public final class LanceSourceReader
    extends SingleThreadMultiplexSourceReaderBase<RowData, RowData, LanceSplit, LanceSplitState> {

  public LanceSourceReader(LanceScan scan, Configuration config, SourceReaderContext context) {
    super(
        () -> new LanceSplitReader(scan),
        (row, output, state) -> {
          output.collect(row);
          state.rowEmitted();
        },
        config,
        context);
  }

  @Override
  public void start() {
    if (getNumberOfCurrentlyAssignedSplits() == 0) {
      context.sendSplitRequest();
    }
  }

  @Override
  protected void onSplitFinished(Map<String, LanceSplitState> finishedSplits) {
    context.sendSplitRequest();
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
