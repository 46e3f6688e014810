package dev.flinklance.sink.arrow;

import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.flink.table.data.ArrayData;

/** A fixed-dimension vector (ARRAY into Arrow FixedSizeList); the dimension is checked per row. */
final class VectorWriter extends FieldWriter<FixedSizeListVector> {
  private final FieldWriter<?> elementWriter;
  private final int dimension;
  private final ValueReader elements = new ValueReader();

  VectorWriter(FixedSizeListVector vector, String path, FieldWriter<?> elementWriter) {
    super(vector, path);
    this.elementWriter = elementWriter;
    this.dimension = vector.getListSize();
  }

  @Override
  void writeValue(ValueReader source, int pos, int index) {
    ArrayData array = source.getArray(pos);
    if (array.size() != dimension) {
      throw new InvalidValueException(
          path,
          String.format("expected a vector of dimension %d, got %d", dimension, array.size()));
    }
    vector.setNotNull(index);
    int start = index * dimension;
    elements.pointTo(array);
    for (int i = 0; i < dimension; i++) {
      elementWriter.write(elements, i, start + i);
    }
  }

  /** A null vector still owns {@code dimension} child slots; they stay null. */
  @Override
  void setNull(int index) {
    vector.setNull(index);
    int end = (index + 1) * dimension;
    for (int i = index * dimension; i < end; i++) {
      elementWriter.setNull(i);
    }
  }
}
