package dev.flinklance.arrow.write;

import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VariableWidthFieldVector;

/** A writer for a leaf (non-nested) type; the type-specific part is one {@link Setter}. */
final class LeafWriter<V extends FieldVector> extends FieldWriter<V> {

  /** Copies the non-null value at {@code pos} of {@code source} into slot {@code index}. */
  @FunctionalInterface
  interface Setter<V> {
    void set(V vector, ValueReader source, int pos, int index);
  }

  private static final byte[] EMPTY = new byte[0];

  private final Setter<V> setter;

  LeafWriter(V vector, String path, Setter<V> setter) {
    super(vector, path);
    this.setter = setter;
  }

  @Override
  void writeValue(ValueReader source, int pos, int index) {
    setter.set(vector, source, pos, index);
  }

  @Override
  void setPlaceholder(int index) {
    if (vector instanceof VariableWidthFieldVector) {
      ((VariableWidthFieldVector) vector).setSafe(index, EMPTY);
    } else {
      setNull(index); // makes room; the value bits are never read
      ((BaseFixedWidthVector) vector).setIndexDefined(index);
    }
  }
}
