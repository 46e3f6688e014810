package dev.flinklance.arrow.read;

import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.LargeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.MapVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.flink.core.memory.MemorySegment;
import org.apache.flink.core.memory.MemorySegmentFactory;
import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.MapData;
import org.apache.flink.table.data.binary.BinaryArrayData;
import org.apache.flink.table.data.columnar.ColumnarArrayData;
import org.apache.flink.table.data.columnar.ColumnarMapData;
import org.apache.flink.table.data.columnar.ColumnarRowData;
import org.apache.flink.table.data.columnar.vector.ArrayColumnVector;
import org.apache.flink.table.data.columnar.vector.ColumnVector;
import org.apache.flink.table.data.columnar.vector.MapColumnVector;
import org.apache.flink.table.data.columnar.vector.RowColumnVector;
import org.apache.flink.table.data.columnar.vector.VectorizedColumnBatch;

/** Flink views of Arrow's nested vectors: each value is a view over a range of the children. */
final class NestedViews {

  private NestedViews() {}

  /** Start and end offsets of list {@code i} in its child vector, for the three list layouts. */
  private static long start(FieldVector list, int i) {
    if (list instanceof FixedSizeListVector fixed) {
      return (long) i * fixed.getListSize();
    }
    if (list instanceof LargeListVector) {
      return list.getOffsetBuffer().getLong((long) i * LargeListVector.OFFSET_WIDTH);
    }
    return list.getOffsetBuffer().getInt((long) i * ListVector.OFFSET_WIDTH);
  }

  private static long end(FieldVector list, int i) {
    if (list instanceof FixedSizeListVector fixed) {
      return (long) (i + 1) * fixed.getListSize();
    }
    return start(list, i + 1);
  }

  /**
   * ARRAY from list, large_list and fixed_size_list (vectors). An array of null-free primitives
   * whose Arrow layout is Flink's (embeddings, mostly) is copied in one piece into a {@link
   * BinaryArrayData}: Flink copies and serializes that without touching single elements, where a
   * columnar array costs a boxed object per element (measured with bin/bench-read).
   */
  static final class ArrayView extends ScalarViews.ArrowView<FieldVector>
      implements ArrayColumnVector {
    private final FieldVector elementVector;
    private final ColumnVector elements;
    private final int elementBytes;

    /**
     * Whether the batch's elements hold no NULL, asked once: Arrow counts the validity bits of
     * every element of the batch for it (768-dim vectors in a batch of 8,192 rows: 6M bits per row
     * read). A view lives for one batch, whose vectors do not change under it.
     */
    private Boolean elementsNullFree;

    ArrayView(FieldVector vector, ColumnVector elements) {
      super(vector);
      this.elementVector = vector.getChildrenFromFields().get(0);
      this.elements = elements;
      this.elementBytes = flinkLayoutBytes(elementVector);
    }

    @Override
    public ArrayData getArray(int i) {
      long start = start(vector, i);
      int length = (int) (end(vector, i) - start);
      if (elementBytes > 0 && elementsNullFree()) {
        return copyOf(start, length);
      }
      return new ColumnarArrayData(elements, (int) start, length);
    }

    private boolean elementsNullFree() {
      if (elementsNullFree == null) {
        elementsNullFree = elementVector.getNullCount() == 0;
      }
      return elementsNullFree;
    }

    private BinaryArrayData copyOf(long start, int length) {
      int header = BinaryArrayData.calculateHeaderInBytes(length);
      int values = length * elementBytes;
      byte[] data = new byte[(header + values + 7) / 8 * 8]; // Flink aligns arrays to 8 bytes
      MemorySegment segment = MemorySegmentFactory.wrap(data);
      segment.putInt(0, length); // no null bits to set: the elements are null-free
      elementVector.getDataBuffer().getBytes(start * elementBytes, data, header, values);
      BinaryArrayData array = new BinaryArrayData();
      array.pointTo(segment, 0, data.length);
      return array;
    }

    /** Bytes per element when Arrow's values are laid out as Flink's binary array's, else 0. */
    private static int flinkLayoutBytes(FieldVector elements) {
      if (elements.getField().getDictionary() != null) {
        return 0;
      }
      if (elements instanceof TinyIntVector) {
        return 1;
      }
      if (elements instanceof SmallIntVector) {
        return 2;
      }
      if (elements instanceof IntVector
          || elements instanceof Float4Vector
          || elements instanceof DateDayVector) {
        return 4;
      }
      if (elements instanceof BigIntVector || elements instanceof Float8Vector) {
        return 8;
      }
      return 0;
    }
  }

  static final class MapView extends ScalarViews.ArrowView<MapVector> implements MapColumnVector {
    private final ColumnVector keys;
    private final ColumnVector values;

    MapView(MapVector vector, ColumnVector keys, ColumnVector values) {
      super(vector);
      this.keys = keys;
      this.values = values;
    }

    @Override
    public MapData getMap(int i) {
      long start = start(vector, i);
      return new ColumnarMapData(keys, values, (int) start, (int) (end(vector, i) - start));
    }
  }

  static final class RowView extends ScalarViews.ArrowView<StructVector>
      implements RowColumnVector {
    private final VectorizedColumnBatch fields;

    RowView(StructVector vector, ColumnVector[] fields) {
      super(vector);
      this.fields = new VectorizedColumnBatch(fields);
    }

    @Override
    public ColumnarRowData getRow(int i) {
      return new ColumnarRowData(fields, i);
    }
  }
}
