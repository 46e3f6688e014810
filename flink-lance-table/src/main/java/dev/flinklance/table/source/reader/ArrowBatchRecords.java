package dev.flinklance.table.source.reader;

import dev.flinklance.arrow.read.ArrowColumnarBatch;
import java.util.Set;
import org.apache.flink.connector.base.source.reader.RecordsWithSplitIds;
import org.apache.flink.table.data.RowData;

/**
 * One Arrow batch of one split, handed from the fetcher thread to the reader's main thread. The
 * batch's buffers are owned here and released in {@link #recycle()}, which Flink calls once every
 * row has been emitted: the rows are views over those buffers.
 */
final class ArrowBatchRecords implements RecordsWithSplitIds<RowData> {
  private final String splitId;
  private final ArrowColumnarBatch rows;
  private final AutoCloseable buffers;
  private boolean splitReturned;
  private int next;

  ArrowBatchRecords(String splitId, ArrowColumnarBatch rows, AutoCloseable buffers) {
    this.splitId = splitId;
    this.rows = rows;
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
    return next < rows.rowCount() ? rows.row(next++) : null;
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
