package dev.flinklance.arrow.write;

import dev.flinklance.arrow.InvalidValueException;
import org.apache.arrow.vector.FieldVector;

/**
 * Writes one Flink value, read from a row field or an array element, into an Arrow vector at a
 * given index. One instance per column (and per nested child), built once against the table's
 * schema by {@link FieldWriters}.
 */
abstract class FieldWriter<V extends FieldVector> {
  protected final V vector;
  protected final String path;

  FieldWriter(V vector, String path) {
    this.vector = vector;
    this.path = path;
  }

  final void write(ValueReader source, int pos, int index) {
    if (source.isNullAt(pos)) {
      writeNull(index);
    } else {
      writeValue(source, pos, index);
    }
  }

  /** A null from the stream: rejected where the table column is NOT NULL. */
  final void writeNull(int index) {
    if (!vector.getField().isNullable()) {
      throw new InvalidValueException(path, "null value for a NOT NULL column");
    }
    setNull(index);
  }

  abstract void writeValue(ValueReader source, int pos, int index);

  /**
   * The batch's buffers were released (handed on, or cleared): room known from before is gone.
   * Within a batch vectors only grow, so room known earlier in it stays true.
   */
  void forgetRoom() {}

  /**
   * Fills this child's slot under a null container (a null ROW, a null vector): null where the
   * field allows it, else a placeholder. Lance rejects nulls in a NOT NULL field even when the
   * parent is null.
   */
  final void writeAbsent(int index) {
    if (vector.getField().isNullable()) {
      setNull(index);
    } else {
      setPlaceholder(index);
    }
  }

  /** A non-null value nobody reads: zero bits, an empty string, an empty list. */
  abstract void setPlaceholder(int index);

  /** Marks the slot null, whatever a failed row left there. */
  abstract void setNull(int index);
}
