package dev.flinklance.source.reader;

import dev.flinklance.source.split.LanceSplit;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.flink.types.RowKind;

/**
 * Which rows of each scanned batch a split emits, and as what: every row, or (the rows a version
 * deleted, too many to name in the scan's filter) those it deleted, past the ones emitted before a
 * restore; as +I and -D, or as -U and +U for the updates the version's pairs know.
 */
final class RowChoice {
  private final RowKind kind;
  private final ChangeKeys keys;
  private final UpdatePairs pairs;
  private final DeletedRows picked;
  private long toSkip;

  /**
   * @param keys the keys of {@code pairs}, or null
   * @param pairs the updates of the split's version, or null to emit every row as one kind
   * @param picked the rows to pick out of a scan of the whole fragment, or null for every row
   */
  RowChoice(LanceSplit split, ChangeKeys keys, UpdatePairs pairs, DeletedRows picked) {
    this.kind = split.kind().readsPreviousVersion() ? RowKind.DELETE : RowKind.INSERT;
    this.keys = keys;
    this.pairs = pairs;
    this.picked = picked;
    this.toSkip = picked == null ? 0 : split.rowsEmitted();
  }

  ChosenRows choose(VectorSchemaRoot batch) {
    int rowCount = batch.getRowCount();
    int[] indices = null;
    int count = rowCount;
    if (picked != null) {
      BaseIntVector addresses = FragmentRows.rowAddresses(batch);
      indices = new int[rowCount];
      count = 0;
      for (int i = 0; i < rowCount; i++) {
        if (picked.contains(addresses.getValueAsLong(i))) {
          if (toSkip > 0) {
            toSkip--;
          } else {
            indices[count++] = i;
          }
        }
      }
    }
    if (pairs == null) {
      return new ChosenRows(count, indices, null, kind);
    }
    RowKind[] kinds = new RowKind[count];
    for (int i = 0; i < count; i++) {
      long key = keys.keyOf(batch, indices == null ? i : indices[i]);
      kinds[i] = kind == RowKind.DELETE ? pairs.removedKind(key) : pairs.addedKind(key);
    }
    return new ChosenRows(count, indices, kinds, kind);
  }
}
