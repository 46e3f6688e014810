package dev.flinklance.source.reader;

import dev.flinklance.commit.VersionChange;
import dev.flinklance.source.LanceScan;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.flink.types.RowKind;
import org.lance.Dataset;
import org.lance.ipc.ScanOptions;

/**
 * Which rows of one version of a changelog read are updates: a row the version removed whose key is
 * among the rows it added is -U (and that added row +U); any other removed row is -D, any other
 * added row +I. Both sides are taken after the pushed filter, so the labels describe the filtered
 * rows: a row updated out of the filter is -D, one updated into it +I.
 */
final class UpdatePairs {
  private final long version;
  private final SortedLongs removed;
  private final SortedLongs added;

  private UpdatePairs(long version, SortedLongs removed, SortedLongs added) {
    this.version = version;
    this.removed = removed;
    this.added = added;
  }

  /** No pairs: a replaced table, whose row ids start over, or a version with nothing removed. */
  static UpdatePairs none(long version) {
    return new UpdatePairs(version, new SortedLongs(), new SortedLongs());
  }

  /**
   * Reads the keys of the rows {@code change} removed (at {@code before}) and added (at {@code
   * after}).
   */
  static UpdatePairs read(
      LanceScan scan, ChangeKeys keys, Dataset before, Dataset after, VersionChange change)
      throws Exception {
    if (change.kind() != VersionChange.Kind.ROWS || !change.removesRows()) {
      return none(change.version());
    }
    SortedLongs removed = new SortedLongs();
    SortedLongs added = new SortedLongs();
    ScanOptions keysOnly = scan.scanOptions(0, keys.columns(), keys.rowId(), false, null);
    for (int fragment : change.removedFragments()) {
      FragmentRows.scan(before, fragment, keysOnly, batch -> addAll(keys, batch, removed));
    }
    for (int fragment : change.deletedRowsFragments()) {
      DeletedRows deleted = DeletedRows.of(before, after, fragment);
      ScanOptions options =
          scan.scanOptions(0, keys.columns(), keys.rowId(), !deleted.named(), deleted.filter());
      FragmentRows.scan(
          before,
          fragment,
          options,
          batch -> {
            BaseIntVector addresses = deleted.named() ? null : FragmentRows.rowAddresses(batch);
            for (int i = 0; i < batch.getRowCount(); i++) {
              if (addresses == null || deleted.contains(addresses.getValueAsLong(i))) {
                removed.add(keys.keyOf(batch, i));
              }
            }
          });
    }
    for (int fragment : change.addedFragments()) {
      FragmentRows.scan(after, fragment, keysOnly, batch -> addAll(keys, batch, added));
    }
    return new UpdatePairs(change.version(), removed, added);
  }

  private static void addAll(
      ChangeKeys keys, org.apache.arrow.vector.VectorSchemaRoot batch, SortedLongs into) {
    for (int i = 0; i < batch.getRowCount(); i++) {
      into.add(keys.keyOf(batch, i));
    }
  }

  long version() {
    return version;
  }

  RowKind removedKind(long key) {
    return added.contains(key) ? RowKind.UPDATE_BEFORE : RowKind.DELETE;
  }

  RowKind addedKind(long key) {
    return removed.contains(key) ? RowKind.UPDATE_AFTER : RowKind.INSERT;
  }
}
