package dev.flinklance.arrow.write;

import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.MapData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;

/**
 * Positional access to the values of a {@link RowData} or an {@link ArrayData}. Flink gives the two
 * no common interface; this view lets each field writer be written once for both. It is re-pointed
 * for every container, so reading allocates nothing.
 */
final class ValueReader {
  private RowData row;
  private ArrayData array;

  ValueReader pointTo(RowData row) {
    this.row = row;
    this.array = null;
    return this;
  }

  ValueReader pointTo(ArrayData array) {
    this.array = array;
    this.row = null;
    return this;
  }

  boolean isNullAt(int pos) {
    return row != null ? row.isNullAt(pos) : array.isNullAt(pos);
  }

  boolean getBoolean(int pos) {
    return row != null ? row.getBoolean(pos) : array.getBoolean(pos);
  }

  byte getByte(int pos) {
    return row != null ? row.getByte(pos) : array.getByte(pos);
  }

  short getShort(int pos) {
    return row != null ? row.getShort(pos) : array.getShort(pos);
  }

  int getInt(int pos) {
    return row != null ? row.getInt(pos) : array.getInt(pos);
  }

  long getLong(int pos) {
    return row != null ? row.getLong(pos) : array.getLong(pos);
  }

  float getFloat(int pos) {
    return row != null ? row.getFloat(pos) : array.getFloat(pos);
  }

  double getDouble(int pos) {
    return row != null ? row.getDouble(pos) : array.getDouble(pos);
  }

  StringData getString(int pos) {
    return row != null ? row.getString(pos) : array.getString(pos);
  }

  byte[] getBinary(int pos) {
    return row != null ? row.getBinary(pos) : array.getBinary(pos);
  }

  DecimalData getDecimal(int pos, int precision, int scale) {
    return row != null
        ? row.getDecimal(pos, precision, scale)
        : array.getDecimal(pos, precision, scale);
  }

  TimestampData getTimestamp(int pos, int precision) {
    return row != null ? row.getTimestamp(pos, precision) : array.getTimestamp(pos, precision);
  }

  ArrayData getArray(int pos) {
    return row != null ? row.getArray(pos) : array.getArray(pos);
  }

  MapData getMap(int pos) {
    return row != null ? row.getMap(pos) : array.getMap(pos);
  }

  RowData getRow(int pos, int arity) {
    return row != null ? row.getRow(pos, arity) : array.getRow(pos, arity);
  }
}
