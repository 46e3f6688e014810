package dev.flinklance.arrow.read;

import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DateMilliVector;
import org.apache.arrow.vector.Decimal256Vector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.Float2Vector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeMicroVector;
import org.apache.arrow.vector.TimeMilliVector;
import org.apache.arrow.vector.TimeNanoVector;
import org.apache.arrow.vector.TimeSecVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.UInt1Vector;
import org.apache.arrow.vector.UInt2Vector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VariableWidthFieldVector;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.LargeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.MapVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.flink.table.data.columnar.vector.ColumnVector;

/**
 * Builds the Flink {@link ColumnVector} view of an Arrow vector. The set of vectors handled here is
 * the set of types {@link ArrowTypeConverter} maps, with the same conversions (unsigned to wider,
 * every time unit to Flink's representation).
 */
final class ColumnViews {

  private ColumnViews() {}

  /**
   * @param path column path for error messages
   * @throws UnsupportedArrowTypeException for a vector without a Flink view
   */
  static ColumnVector create(FieldVector vector, String path, DictionaryProvider dictionaries) {
    DictionaryEncoding encoding = vector.getField().getDictionary();
    if (encoding != null) {
      Dictionary dictionary = dictionaries == null ? null : dictionaries.lookup(encoding.getId());
      if (dictionary == null) {
        throw new IllegalArgumentException(
            String.format("Column '%s': dictionary %d is missing", path, encoding.getId()));
      }
      return new DictionaryView(
          (BaseIntVector) vector, create(dictionary.getVector(), path, dictionaries));
    }
    if (vector instanceof BitVector bits) {
      return new ScalarViews.BooleanView(bits);
    }
    if (vector instanceof TinyIntVector) {
      return new ScalarViews.TinyIntView((TinyIntVector) vector);
    }
    if (vector instanceof SmallIntVector || vector instanceof UInt1Vector) {
      return new ScalarViews.SmallIntView(vector);
    }
    if (vector instanceof IntVector
        || vector instanceof UInt2Vector
        || vector instanceof DateDayVector
        || vector instanceof DateMilliVector
        || vector instanceof TimeSecVector
        || vector instanceof TimeMilliVector
        || vector instanceof TimeMicroVector
        || vector instanceof TimeNanoVector) {
      return new ScalarViews.IntView(vector);
    }
    if (vector instanceof BigIntVector || vector instanceof UInt4Vector) {
      return new ScalarViews.BigIntView(vector);
    }
    if (vector instanceof Float4Vector || vector instanceof Float2Vector) {
      return new ScalarViews.FloatView(vector);
    }
    if (vector instanceof Float8Vector doubles) {
      return new ScalarViews.DoubleView(doubles);
    }
    if (vector instanceof DecimalVector
        || vector instanceof Decimal256Vector
        || vector instanceof UInt8Vector) {
      return new ScalarViews.DecimalView(vector);
    }
    if (vector instanceof VariableWidthFieldVector || vector instanceof FixedSizeBinaryVector) {
      return new ScalarViews.BytesView(vector);
    }
    if (vector instanceof TimeStampVector timestamps) {
      return new ScalarViews.TimestampView(timestamps);
    }
    if (vector instanceof MapVector map) {
      StructVector entries = (StructVector) map.getDataVector();
      List<FieldVector> keyValue = entries.getChildrenFromFields();
      return new NestedViews.MapView(
          map,
          create(keyValue.get(0), path + "{key}", dictionaries),
          create(keyValue.get(1), path + "{value}", dictionaries));
    }
    if (vector instanceof ListVector
        || vector instanceof LargeListVector
        || vector instanceof FixedSizeListVector) {
      FieldVector elements = vector.getChildrenFromFields().get(0);
      return new NestedViews.ArrayView(vector, create(elements, path + "[]", dictionaries));
    }
    if (vector instanceof StructVector struct) {
      List<ColumnVector> children = new ArrayList<>();
      for (FieldVector child : struct.getChildrenFromFields()) {
        children.add(create(child, path + "." + child.getField().getName(), dictionaries));
      }
      return new NestedViews.RowView(struct, children.toArray(new ColumnVector[0]));
    }
    ArrowType type = vector.getField().getType();
    throw new UnsupportedArrowTypeException(path, type);
  }
}
