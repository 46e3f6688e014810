package dev.flinklance.source.reader;

import java.util.BitSet;
import java.util.List;
import java.util.StringJoiner;
import java.util.stream.LongStream;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.lance.Dataset;
import org.lance.MetadataColumns;
import org.lance.ipc.ScanOptions;

/**
 * The rows of one fragment a version deleted: live at the version before, not at the version
 * itself. Lance's Java API does not read deletion files; scans of the row addresses (and ids),
 * which read no column, tell. A few rows are read by naming their row ids in the scan's filter
 * (lance-core 7.0.0 compares a {@code _rowaddr} filter with the row ids on a table with stable row
 * ids, so it names ids, which are the addresses on other tables); for many, the fragment is scanned
 * and they are picked out by address.
 */
final class DeletedRows {
  /** At most this many rows are named in a filter ({@code _rowid IN (...)}). */
  static final int MAX_NAMED = 4096;

  private final BitSet offsets;
  private final long[] rowIds;

  private DeletedRows(BitSet offsets, long[] rowIds) {
    this.offsets = offsets;
    this.rowIds = rowIds;
  }

  static DeletedRows of(Dataset before, Dataset after, int fragmentId) throws Exception {
    BitSet live = new BitSet();
    FragmentRows.scan(
        after,
        fragmentId,
        addresses(false),
        batch -> {
          BaseIntVector addresses = FragmentRows.rowAddresses(batch);
          for (int i = 0; i < batch.getRowCount(); i++) {
            live.set(FragmentRows.offset(addresses.getValueAsLong(i)));
          }
        });
    Gone gone = new Gone(live);
    FragmentRows.scan(before, fragmentId, addresses(true), gone);
    return new DeletedRows(gone.offsets, gone.rowIds.build().toArray());
  }

  /** Collects the rows of a scan that are not live, and the ids of the first of them. */
  private static final class Gone implements FragmentRows.BatchConsumer {
    private final BitSet live;
    private final BitSet offsets = new BitSet();
    private final LongStream.Builder rowIds = LongStream.builder();
    private int named;

    Gone(BitSet live) {
      this.live = live;
    }

    @Override
    public void accept(VectorSchemaRoot batch) {
      BaseIntVector addresses = FragmentRows.rowAddresses(batch);
      BaseIntVector ids = (BaseIntVector) batch.getVector(MetadataColumns.ROWID);
      for (int i = 0; i < batch.getRowCount(); i++) {
        int offset = FragmentRows.offset(addresses.getValueAsLong(i));
        if (!live.get(offset)) {
          offsets.set(offset);
          if (named++ <= MAX_NAMED) { // one more than named: too many
            rowIds.add(ids.getValueAsLong(i));
          }
        }
      }
    }
  }

  private static ScanOptions addresses(boolean rowIds) {
    return new ScanOptions.Builder()
        .columns(List.of())
        .withRowAddress(true)
        .withRowId(rowIds)
        .batchSize(65_536)
        .build();
  }

  boolean contains(long rowAddress) {
    return offsets.get(FragmentRows.offset(rowAddress));
  }

  /** Whether {@link #filter()} names the rows; else a scan must pick them out. */
  boolean named() {
    return rowIds.length <= MAX_NAMED;
  }

  /** A Lance filter that selects exactly these rows, or null if they are too many to name. */
  String filter() {
    if (!named()) {
      return null;
    }
    if (rowIds.length == 0) {
      return "false";
    }
    StringJoiner ids = new StringJoiner(", ", MetadataColumns.ROWID + " IN (", ")");
    for (long id : rowIds) {
      ids.add(Long.toString(id));
    }
    return ids.toString();
  }
}
