package dev.flinklance.table.source.reader;

import dev.flinklance.arrow.Allocators;
import dev.flinklance.arrow.read.ArrowColumnarBatch;
import dev.flinklance.dataset.LanceDatasetException;
import dev.flinklance.dataset.LanceErrors;
import dev.flinklance.dataset.PermanentDatasetException;
import dev.flinklance.table.source.LanceScan;
import dev.flinklance.table.source.split.LanceSplit;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.util.AutoCloseables;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.flink.connector.base.source.reader.RecordsBySplits;
import org.apache.flink.connector.base.source.reader.RecordsWithSplitIds;
import org.apache.flink.connector.base.source.reader.splitreader.SplitReader;
import org.apache.flink.connector.base.source.reader.splitreader.SplitsChange;
import org.apache.flink.table.data.RowData;
import org.lance.Dataset;
import org.lance.ipc.LanceScanner;

/**
 * Reads the fragments assigned to one reader, one after the other, one Arrow batch per {@link
 * #fetch()}: {@code Fragment.newScan(ScanOptions)} then {@code LanceScanner.scanBatches()}. A split
 * restored with rows already emitted resumes after them.
 */
final class LanceSplitReader implements SplitReader<RowData, LanceSplit> {
  private final LanceScan scan;
  private final BufferAllocator allocator = new RootAllocator();
  private final Set<OwnedBatch> outstanding = ConcurrentHashMap.newKeySet();
  private final Deque<LanceSplit> splits = new ArrayDeque<>();
  private Dataset dataset;
  private LanceSplit current;
  private LanceScanner scanner;
  private ArrowReader batches;

  LanceSplitReader(LanceScan scan) {
    this.scan = scan;
  }

  @Override
  public RecordsWithSplitIds<RowData> fetch() throws IOException {
    if (current == null) {
      current = splits.poll();
      if (current == null) {
        return new RecordsBySplits.Builder<RowData>().build();
      }
      if (!open(current)) {
        return finishCurrent();
      }
    }
    try {
      if (batches.loadNextBatch()) {
        OwnedBatch batch =
            OwnedBatch.takeFrom(batches.getVectorSchemaRoot(), batches, allocator, outstanding);
        ArrowColumnarBatch rows =
            ArrowColumnarBatch.of(batch.root(), scan.columns(), batch.dictionaries());
        return new ArrowBatchRecords(current.splitId(), rows, batch);
      }
    } catch (Exception e) { // Lance also throws undeclared IOExceptions from native code
      throw failure("read", current, e);
    }
    return finishCurrent();
  }

  /** Starts scanning {@code split}; false if its limit is already reached. */
  private boolean open(LanceSplit split) {
    if (scan.limit() != null && split.rowsEmitted() >= scan.limit()) {
      return false;
    }
    if (dataset == null || dataset.version() != split.version()) {
      closeDataset();
      dataset = scan.dataset().open(allocator, split.version());
    }
    try {
      scanner =
          dataset.getFragment(split.fragmentId()).newScan(scan.scanOptions(split.rowsEmitted()));
      batches = scanner.scanBatches();
      return true;
    } catch (Exception e) { // Lance also throws undeclared IOExceptions from native code
      throw failure("scan", split, e);
    }
  }

  /**
   * A file of the pinned version that is gone (cleaned up, table dropped) stays gone: no restart
   * reads it again.
   */
  private LanceDatasetException failure(String action, LanceSplit split, Exception cause) {
    String problem =
        String.format(
            "cannot %s fragment %d of version %d", action, split.fragmentId(), split.version());
    String uri = scan.dataset().uri();
    return LanceErrors.isNotFound(cause)
        ? new PermanentDatasetException(uri, problem, cause)
        : LanceDatasetException.wrap(uri, problem, cause);
  }

  private RecordsWithSplitIds<RowData> finishCurrent() throws IOException {
    String finished = current.splitId();
    closeScan();
    current = null;
    RecordsBySplits.Builder<RowData> records = new RecordsBySplits.Builder<>();
    records.addFinishedSplit(finished);
    return records.build();
  }

  @Override
  public void handleSplitsChanges(SplitsChange<LanceSplit> change) {
    splits.addAll(change.splits());
  }

  @Override
  public void wakeUp() {
    // fetch() never waits for anything but Lance itself
  }

  @Override
  public void close() throws Exception {
    closeScan();
    closeDataset();
    // Batches still queued for the main thread are never recycled once the task ends.
    AutoCloseables.close(new ArrayList<>(outstanding));
    Allocators.closeAtEnd(allocator, "Lance source reader of " + scan.dataset());
  }

  private void closeScan() throws IOException {
    try {
      AutoCloseables.close(batches, scanner);
    } catch (Exception e) {
      throw new IOException("cannot close the scan of " + scan.dataset().uri(), e);
    } finally {
      batches = null;
      scanner = null;
    }
  }

  private void closeDataset() {
    if (dataset != null) {
      dataset.close();
      dataset = null;
    }
  }
}
