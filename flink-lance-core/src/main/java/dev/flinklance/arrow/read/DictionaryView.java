package dev.flinklance.arrow.read;

import org.apache.arrow.vector.BaseIntVector;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.data.columnar.vector.BooleanColumnVector;
import org.apache.flink.table.data.columnar.vector.ByteColumnVector;
import org.apache.flink.table.data.columnar.vector.BytesColumnVector;
import org.apache.flink.table.data.columnar.vector.ColumnVector;
import org.apache.flink.table.data.columnar.vector.DecimalColumnVector;
import org.apache.flink.table.data.columnar.vector.DoubleColumnVector;
import org.apache.flink.table.data.columnar.vector.FloatColumnVector;
import org.apache.flink.table.data.columnar.vector.IntColumnVector;
import org.apache.flink.table.data.columnar.vector.LongColumnVector;
import org.apache.flink.table.data.columnar.vector.ShortColumnVector;
import org.apache.flink.table.data.columnar.vector.TimestampColumnVector;

/**
 * A dictionary-encoded column: each value is the dictionary entry its index points to. It offers
 * every scalar getter; the Flink type of the column (the dictionary's value type) decides which one
 * is called, and that one exists on the dictionary's own view.
 */
final class DictionaryView
    implements BooleanColumnVector,
        ByteColumnVector,
        ShortColumnVector,
        IntColumnVector,
        LongColumnVector,
        FloatColumnVector,
        DoubleColumnVector,
        DecimalColumnVector,
        BytesColumnVector,
        TimestampColumnVector {
  private final BaseIntVector indices;
  private final ColumnVector values;

  DictionaryView(BaseIntVector indices, ColumnVector values) {
    this.indices = indices;
    this.values = values;
  }

  private int index(int i) {
    return (int) indices.getValueAsLong(i);
  }

  @Override
  public boolean isNullAt(int i) {
    return indices.isNull(i) || values.isNullAt(index(i));
  }

  @Override
  public boolean getBoolean(int i) {
    return ((BooleanColumnVector) values).getBoolean(index(i));
  }

  @Override
  public byte getByte(int i) {
    return ((ByteColumnVector) values).getByte(index(i));
  }

  @Override
  public short getShort(int i) {
    return ((ShortColumnVector) values).getShort(index(i));
  }

  @Override
  public int getInt(int i) {
    return ((IntColumnVector) values).getInt(index(i));
  }

  @Override
  public long getLong(int i) {
    return ((LongColumnVector) values).getLong(index(i));
  }

  @Override
  public float getFloat(int i) {
    return ((FloatColumnVector) values).getFloat(index(i));
  }

  @Override
  public double getDouble(int i) {
    return ((DoubleColumnVector) values).getDouble(index(i));
  }

  @Override
  public DecimalData getDecimal(int i, int precision, int scale) {
    return ((DecimalColumnVector) values).getDecimal(index(i), precision, scale);
  }

  @Override
  public Bytes getBytes(int i) {
    return ((BytesColumnVector) values).getBytes(index(i));
  }

  @Override
  public TimestampData getTimestamp(int i, int precision) {
    return ((TimestampColumnVector) values).getTimestamp(index(i), precision);
  }
}
