package dev.flinklance.source.reader;

import java.util.List;
import org.apache.arrow.memory.util.hash.ArrowBufHasher;
import org.apache.arrow.memory.util.hash.MurmurHasher;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.lance.MetadataColumns;

/**
 * What pairs a removed row with the added row that updates it in a changelog read: the table's
 * primary key columns, or else Lance's stable row id (kept by Lance's updates). A key is a long:
 * the row id or a single integer column exactly; other keys as a 64-bit hash of their values, so
 * two keys of one version are taken for one with a chance of about n^2 / 2^64 for n changed rows.
 */
final class ChangeKeys {
  private static final ArrowBufHasher HIGH = new MurmurHasher(0x5bd1e995);
  private static final ArrowBufHasher LOW = new MurmurHasher(0x1b873593);

  private final List<String> columns;

  private ChangeKeys(List<String> columns) {
    this.columns = columns;
  }

  /**
   * @return the keys of a changelog read with {@code primaryKey}, or null if updates cannot be
   *     paired (no key, no stable row ids)
   */
  static ChangeKeys of(List<String> primaryKey, boolean stableRowIds) {
    if (!primaryKey.isEmpty()) {
      return new ChangeKeys(List.copyOf(primaryKey));
    }
    return stableRowIds ? new ChangeKeys(List.of()) : null;
  }

  /** The columns to read for the key (none for the row id). */
  List<String> columns() {
    return columns;
  }

  /** Whether the key is {@code _rowid}. */
  boolean rowId() {
    return columns.isEmpty();
  }

  long keyOf(VectorSchemaRoot batch, int row) {
    if (rowId()) {
      return ((BaseIntVector) batch.getVector(MetadataColumns.ROWID)).getValueAsLong(row);
    }
    if (columns.size() == 1 && batch.getVector(columns.get(0)) instanceof BaseIntVector exact) {
      return exact.getValueAsLong(row);
    }
    long hash = 0x9e3779b97f4a7c15L;
    for (String column : columns) {
      FieldVector vector = batch.getVector(column);
      long value =
          ((long) vector.hashCode(row, HIGH) << 32) | (vector.hashCode(row, LOW) & 0xffffffffL);
      hash = mix(hash ^ value);
    }
    return hash;
  }

  /** The finalizer of SplitMix64: every input bit affects every output bit. */
  private static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
    return z ^ (z >>> 31);
  }
}
