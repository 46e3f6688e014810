package dev.flinklance.source.reader;

import dev.flinklance.arrow.read.ArrowColumnarBatch;
import java.util.Set;
import org.apache.flink.connector.base.source.reader.RecordsWithSplitIds;
import org.apache.flink.table.data.RowData;
import org.apache.flink.types.RowKind;

/**
 * The rows of one Arrow batch of one split that the split emits, with their kinds, handed from the
 * fetcher thread to the reader's main thread. The batch's buffers are owned here and released in
 * {@link #recycle()}, which Flink calls once every row has been emitted: the rows are views over
 * those buffers.
 */
final class ArrowBatchRecords implements RecordsWithSplitIds<RowData> {
  private final String splitId;
  private final ArrowColumnarBatch rows;
  private final ChosenRows chosen;
  private final AutoCloseable buffers;
  private boolean splitReturned;
  private int next;

  ArrowBatchRecords(
      String splitId, ArrowColumnarBatch rows, ChosenRows chosen, AutoCloseable buffers) {
    this.splitId = splitId;
    this.rows = rows;
    this.chosen = chosen;
    this.buffers = buffers;
  }

  @Override
  public String nextSplit() {
    if (splitReturned) {
      return null;
    }
    splitReturned = true;
    return splitId;
  }

  @Override
  public RowData nextRecordFromSplit() {
    if (next >= chosen.count()) {
      return null;
    }
    int[] indices = chosen.indices();
    RowData row = rows.row(indices == null ? next : indices[next]);
    RowKind[] kinds = chosen.kinds();
    row.setRowKind(kinds == null ? chosen.kind() : kinds[next]); // the view is reused: always set
    next++;
    return row;
  }

  @Override
  public Set<String> finishedSplits() {
    return Set.of();
  }

  @Override
  public void recycle() {
    try {
      buffers.close();
    } catch (Exception e) {
      throw new IllegalStateException("cannot release an Arrow batch", e);
    }
  }
}
