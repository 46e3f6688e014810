package dev.flinklance.arrow.write;

import dev.flinklance.arrow.InvalidValueException;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.flink.table.data.ArrayData;

/** A fixed-dimension vector (ARRAY into Arrow FixedSizeList); the dimension is checked per row. */
final class VectorWriter extends FieldWriter<FixedSizeListVector> {
  private final FieldWriter<?> elementWriter;
  private final BulkElementCopier bulk;
  private final int dimension;
  private final ValueReader elements = new ValueReader();

  /**
   * @param bulk fast path for null-free primitive elements, or null
   */
  VectorWriter(
      FixedSizeListVector vector,
      String path,
      FieldWriter<?> elementWriter,
      BulkElementCopier bulk) {
    super(vector, path);
    this.elementWriter = elementWriter;
    this.bulk = bulk;
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
    if (bulk != null && bulk.copy(array, start)) {
      return;
    }
    elements.pointTo(array);
    for (int i = 0; i < dimension; i++) {
      elementWriter.write(elements, i, start + i);
    }
  }

  @Override
  void setNull(int index) {
    vector.setNull(index);
    fillElements(index);
  }

  @Override
  void setPlaceholder(int index) {
    vector.setNotNull(index);
    fillElements(index);
  }

  @Override
  void forgetRoom() {
    elementWriter.forgetRoom();
  }

  /** A vector owns {@code dimension} child slots whether or not it is null. */
  private void fillElements(int index) {
    int end = (index + 1) * dimension;
    for (int i = index * dimension; i < end; i++) {
      elementWriter.writeAbsent(i);
    }
  }
}
