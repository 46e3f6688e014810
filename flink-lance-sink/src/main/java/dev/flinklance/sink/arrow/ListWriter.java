package dev.flinklance.sink.arrow;

import org.apache.arrow.vector.complex.ListVector;
import org.apache.flink.table.data.ArrayData;

/** ARRAY into an Arrow List. */
final class ListWriter extends FieldWriter<ListVector> {
  private final FieldWriter<?> elementWriter;
  private final ValueReader elements = new ValueReader();

  ListWriter(ListVector vector, String path, FieldWriter<?> elementWriter) {
    super(vector, path);
    this.elementWriter = elementWriter;
  }

  @Override
  void writeValue(ValueReader source, int pos, int index) {
    ArrayData array = source.getArray(pos);
    int size = array.size();
    int start = vector.startNewValue(index);
    elements.pointTo(array);
    for (int i = 0; i < size; i++) {
      elementWriter.write(elements, i, start + i);
    }
    vector.endValue(index, size);
  }

  @Override
  void setNull(int index) {
    vector.setNull(index);
  }
}
