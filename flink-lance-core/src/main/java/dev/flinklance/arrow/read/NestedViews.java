package dev.flinklance.arrow.read;

import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.LargeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.MapVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.MapData;
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

  /** ARRAY from list, large_list and fixed_size_list (vectors). */
  static final class ArrayView extends ScalarViews.ArrowView<FieldVector>
      implements ArrayColumnVector {
    private final ColumnVector elements;

    ArrayView(FieldVector vector, ColumnVector elements) {
      super(vector);
      this.elements = elements;
    }

    @Override
    public ArrayData getArray(int i) {
      long start = start(vector, i);
      return new ColumnarArrayData(elements, (int) start, (int) (end(vector, i) - start));
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
