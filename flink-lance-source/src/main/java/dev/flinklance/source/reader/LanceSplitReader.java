package dev.flinklance.source.reader;

import dev.flinklance.arrow.read.ArrowColumnarBatch;
import dev.flinklance.errors.LanceDatasetException;
import dev.flinklance.errors.LanceErrors;
import dev.flinklance.source.LanceScan;
import dev.flinklance.source.split.LanceSplit;
import dev.flinklance.source.split.SplitKind;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.arrow.util.AutoCloseables;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.flink.connector.base.source.reader.RecordsBySplits;
import org.apache.flink.connector.base.source.reader.RecordsWithSplitIds;
import org.apache.flink.connector.base.source.reader.splitreader.SplitReader;
import org.apache.flink.connector.base.source.reader.splitreader.SplitsChange;
import org.apache.flink.table.data.RowData;
import org.lance.Dataset;
import org.lance.ipc.LanceScanner;

/**
 * Reads the splits assigned to one reader, one after the other, one Arrow batch per {@link
 * #fetch()}: {@code Fragment.newScan(ScanOptions)} then {@code LanceScanner.scanBatches()}, at the
 * split's version, or at the version before for the rows a version removed. A split restored with
 * rows already emitted resumes after them. The versions come from the source reader's {@link
 * ReaderTable}, which outlives this.
 */
final class LanceSplitReader implements SplitReader<RowData, LanceSplit> {
  private final LanceScan scan;
  private final ReaderMetrics metrics;
  private final Set<OwnedBatch> outstanding = ConcurrentHashMap.newKeySet();
  private final Deque<LanceSplit> splits = new ArrayDeque<>();

  /** The table at the versions the splits read: the source reader's, shared with each of these. */
  private final ReaderTable table;

  private LanceSplit current;
  private LanceScanner scanner;
  private ArrowReader batches;

  /** What the current split emits of each batch it scans. */
  private RowChoice choice;

  /**
   * The produced columns the current split's version does not have (added later by another client):
   * NULL in its rows, the table as it was. The planner checked that they may be.
   */
  private Set<String> absent;

  LanceSplitReader(LanceScan scan, ReaderMetrics metrics, ReaderTable table) {
    this.scan = scan;
    this.metrics = metrics;
    this.table = table;
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
      while (batches.loadNextBatch()) {
        VectorSchemaRoot loaded = batches.getVectorSchemaRoot();
        ChosenRows rows = choice.choose(loaded);
        if (rows.count() == 0) {
          continue; // nothing of this batch is emitted: load the next into the same vectors
        }
        OwnedBatch batch = OwnedBatch.takeFrom(loaded, batches, table.allocator(), outstanding);
        ArrowColumnarBatch view =
            ArrowColumnarBatch.of(batch.root(), scan.columns(), absent, batch.dictionaries());
        metrics.fetched(current);
        return new ArrowBatchRecords(current.splitId(), view, rows, batch);
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
    try {
      Dataset rows = table.dataset(split, split.readVersion());
      ChangeKeys keys =
          scan.changelog() && split.kind() != SplitKind.SNAPSHOT
              ? ChangeKeys.of(scan.changelogKey(), rows.hasStableRowIds())
              : null;
      UpdatePairs versionPairs = keys == null ? null : table.pairs(split, keys);
      DeletedRows deleted =
          split.kind() == SplitKind.DELETED_ROWS
              ? DeletedRows.of(rows, table.dataset(split, split.version()), split.fragmentId())
              : null;
      DeletedRows picked = deleted == null || deleted.named() ? null : deleted;
      choice = new RowChoice(split, keys, versionPairs, picked);
      absent = absentColumns(rows);
      List<String> columns = new ArrayList<>(scan.columns());
      columns.removeAll(absent);
      if (keys != null) {
        keys.columns().stream().filter(c -> !columns.contains(c)).forEach(columns::add);
      }
      // Named rows come in address order, so that Lance's offset resumes after those emitted.
      long offset = picked == null ? split.rowsEmitted() : 0;
      scanner =
          rows.getFragment(split.fragmentId())
              .newScan(
                  scan.scanOptions(
                      offset,
                      columns,
                      keys != null && keys.rowId(),
                      picked != null,
                      deleted == null ? null : deleted.filter()));
      batches = scanner.scanBatches();
      return true;
    } catch (LanceDatasetException e) {
      throw e;
    } catch (Exception e) { // Lance also throws undeclared IOExceptions from native code
      throw failure("scan", split, e);
    }
  }

  private Set<String> absentColumns(Dataset version) {
    Set<String> absent = new HashSet<>(scan.columns());
    version.getSchema().getFields().forEach(field -> absent.remove(field.getName()));
    return Set.copyOf(absent);
  }

  private LanceDatasetException failure(String action, LanceSplit split, Exception cause) {
    String problem =
        String.format(
            "cannot %s fragment %d of version %d (%s)",
            action, split.fragmentId(), split.readVersion(), split.describeRows());
    return LanceErrors.isNotFound(cause)
        ? table.gone(problem, cause)
        : LanceDatasetException.wrap(scan.dataset().uri(), problem, cause);
  }

  private RecordsWithSplitIds<RowData> finishCurrent() throws IOException {
    String finished = current.splitId();
    closeScan();
    current = null;
    choice = null;
    absent = null;
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
    // Batches still queued for the main thread are never recycled once the task ends.
    AutoCloseables.close(new ArrayList<>(outstanding));
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
}
