package dev.flinklance.source.reader;

import dev.flinklance.access.OpenTable;
import dev.flinklance.commit.VersionChanges;
import dev.flinklance.errors.LanceErrors;
import dev.flinklance.errors.PermanentDatasetException;
import dev.flinklance.errors.TableReplacedException;
import dev.flinklance.source.LanceScan;
import dev.flinklance.source.TableVersions;
import dev.flinklance.source.split.LanceSplit;
import java.util.HashMap;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.lance.Dataset;

/**
 * The table one source reader reads, open for the reader's whole life. The reader asks for one
 * split at a time and Flink closes a split reader whenever it has no split left, so each split gets
 * a new {@link LanceSplitReader}: were the table theirs, every split would open it again (a
 * manifest read, a request on an object store, a new Lance session) and a changelog read would read
 * a version's update pairs once per split of the version. Flink may start the next split reader
 * while the last one closes, so this is synchronized; a split reader closes only what it opened
 * itself (its scan, its batches).
 */
final class ReaderTable implements AutoCloseable {
  private final LanceScan scan;

  /**
   * Opened at the first version a split reads: its allocator takes the batches, and every other
   * version is checked out of it ({@link OpenTable#checkout}), checked to be the same table (a
   * table replaced under the read ends it, as it ends the planning).
   */
  private OpenTable table;

  /** The other versions open, by version. */
  private final Map<Long, Dataset> datasets = new HashMap<>();

  /** The update pairs of the version last read, in a changelog read that pairs them. */
  private UpdatePairs pairs;

  ReaderTable(LanceScan scan) {
    this.scan = scan;
  }

  /**
   * The table at {@code version}, kept open while splits of the same versions follow; versions the
   * splits have left behind are closed.
   */
  synchronized Dataset dataset(LanceSplit split, long version) {
    datasets
        .entrySet()
        .removeIf(
            open -> {
              boolean stale = open.getKey() < split.version() - 1;
              if (stale) {
                open.getValue().close();
              }
              return stale;
            });
    try {
      if (table == null) {
        table = OpenTable.at(scan.dataset(), version, null);
      }
      if (version == table.dataset().version()) {
        return table.dataset();
      }
      return datasets.computeIfAbsent(version, table::checkout);
    } catch (TableReplacedException e) {
      throw TableVersions.replacedWhileRead(scan.dataset(), e);
    } catch (PermanentDatasetException e) {
      throw e.getCause() != null && LanceErrors.isNotFound(e.getCause())
          ? gone("cannot open version " + version, e.getCause())
          : e;
    }
  }

  /** The pairs of the split's version, read once for all of its splits. */
  synchronized UpdatePairs pairs(LanceSplit split, ChangeKeys keys) throws Exception {
    if (pairs == null || pairs.version() != split.version()) {
      Dataset after = dataset(split, split.version());
      pairs =
          UpdatePairs.read(
              scan,
              keys,
              dataset(split, split.version() - 1),
              after,
              VersionChanges.of(after, split.version(), scan.watchedColumns()));
    }
    return pairs;
  }

  /** The allocator of the batches; the table is open once a split has read it. */
  synchronized BufferAllocator allocator() {
    return table.allocator();
  }

  /**
   * A version that is gone (cleaned up, table dropped) stays gone: no restart reads it again. A
   * streaming read says what keeps the versions it needs.
   */
  PermanentDatasetException gone(String problem, Throwable cause) {
    return new PermanentDatasetException(
        scan.dataset().uri(),
        scan.streaming() == null
            ? problem
            : problem
                + ": the version no longer exists (cleaned up?); "
                + TableVersions.cleanupHint(scan.streaming()),
        cause);
  }

  /** After every split reader has closed: their batches came from the table's allocator. */
  @Override
  public synchronized void close() {
    datasets.values().forEach(Dataset::close);
    datasets.clear();
    pairs = null;
    if (table != null) {
      table.close();
      table = null;
    }
  }
}
