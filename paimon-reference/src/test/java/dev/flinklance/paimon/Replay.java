package dev.flinklance.paimon;

import java.util.Arrays;
import java.util.BitSet;
import java.util.Iterator;
import java.util.Objects;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;

/**
 * The changelog replayed in Java: the row each id holds at the end, to which a table read back is
 * compared row by row.
 */
final class Replay {
  private final Changes changes;

  /** Per initial id, the change that wrote its row last, or -1 once deleted. */
  private final long[] writtenBy;

  private final long rowCount;
  private final double scoreSum;

  Replay(Changes changes) {
    this.changes = changes;
    this.writtenBy = new long[Math.toIntExact(changes.rows)];
    Arrays.setAll(writtenBy, id -> id);
    long inserted = 0;
    for (long g = changes.rows; g < changes.rows + changes.changes; g++) {
      switch (changes.kind(g)) {
        case INSERT -> inserted++;
        case UPDATE -> writtenBy[(int) changes.id(g)] = g;
        case DELETE -> writtenBy[(int) changes.id(g)] = -1;
      }
    }
    long live = Arrays.stream(writtenBy).filter(g -> g >= 0).count();
    this.rowCount = live + inserted;
    double sum = 0;
    for (long id = 0; id < changes.rows + changes.changes; id++) {
      Row row = expected(id);
      sum += row == null ? 0 : (Double) row.getField(2);
    }
    this.scoreSum = sum;
  }

  long rowCount() {
    return rowCount;
  }

  double scoreSum() {
    return scoreSum;
  }

  /** The row {@code id} holds at the end, or null if it holds none. */
  Row expected(long id) {
    if (id < 0 || id >= changes.rows + changes.changes) {
      return null;
    }
    long g =
        id < changes.rows ? writtenBy[(int) id] : changes.kind(id) == Changes.Kind.INSERT ? id : -1;
    return g < 0 ? null : Changes.row(RowKind.INSERT, id, g);
  }

  /**
   * Compares the rows of a table (id, payload, score, qty, in any order) with the replay: null if
   * they are the same, else the first difference.
   */
  String differences(Iterator<Row> rows) {
    BitSet seen = new BitSet();
    long count = 0;
    while (rows.hasNext()) {
      Row row = rows.next();
      long id = (Long) row.getField(0);
      Row expected = expected(id);
      Row actual = Row.of(id, row.getField(1), row.getField(2), row.getField(3));
      if (!Objects.equals(expected, actual)) {
        return "id " + id + ": " + actual + ", expected " + expected;
      }
      if (seen.get((int) id)) {
        return "id " + id + " twice";
      }
      seen.set((int) id);
      count++;
    }
    return count == rowCount ? null : count + " rows, expected " + rowCount;
  }
}
