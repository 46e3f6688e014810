package dev.flinklance.arrow.write;

import org.apache.arrow.vector.complex.ListVector;
import org.apache.flink.table.data.ArrayData;

/** ARRAY into an Arrow List. */
final class ListWriter extends RepeatedWriter<ListVector> {
  private final FieldWriter<?> elementWriter;
  private final BulkElementCopier bulk;
  private final ValueReader elements = new ValueReader();

  /**
   * @param bulk fast path for null-free primitive elements, or null
   */
  ListWriter(ListVector vector, String path, FieldWriter<?> elementWriter, BulkElementCopier bulk) {
    super(vector, path);
    this.elementWriter = elementWriter;
    this.bulk = bulk;
  }

  @Override
  void writeValue(ValueReader source, int pos, int index) {
    ArrayData array = source.getArray(pos);
    int size = array.size();
    int start = vector.startNewValue(index);
    if (bulk == null || !bulk.copy(array, start)) {
      elements.pointTo(array);
      for (int i = 0; i < size; i++) {
        elementWriter.write(elements, i, start + i);
      }
    }
    vector.endValue(index, size);
  }

  @Override
  void forgetRoom() {
    elementWriter.forgetRoom();
  }
}
