package dev.flinklance.arrow.write;

import dev.flinklance.arrow.InvalidValueException;
import dev.flinklance.arrow.SchemaMismatchException;
import dev.flinklance.arrow.UnsupportedTypeException;
import dev.flinklance.arrow.read.ArrowTypeConverter;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.LargeVarBinaryVector;
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeMicroVector;
import org.apache.arrow.vector.TimeMilliVector;
import org.apache.arrow.vector.TimeNanoVector;
import org.apache.arrow.vector.TimeSecVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VariableWidthFieldVector;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.MapVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeRoot;
import org.apache.flink.table.types.logical.MapType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.TimestampType;

/**
 * Builds the writer for a Flink type and a table column's vector. This is also the schema
 * compatibility check: a pair that has no writer is a mismatch, reported with its column path.
 */
final class FieldWriters {

  /** The position of a table column the stream does not have: written as NULL. */
  static final int ABSENT = -1;

  private FieldWriters() {}

  static FieldWriter<?> create(String path, LogicalType type, FieldVector vector) {
    if (type.isNullable() && !vector.getField().isNullable()) {
      throw new SchemaMismatchException(
          String.format(
              "Column '%s' is nullable in the stream (%s) but NOT NULL in the table",
              path, type.asSummaryString()));
    }
    FieldWriter<?> writer = createForType(path, type, vector);
    if (writer == null) {
      throw new SchemaMismatchException(
          String.format(
              "Column '%s' has stream type %s, which cannot be written to table type %s",
              path, type.asSummaryString(), vector.getField().getType()));
    }
    return writer;
  }

  private static FieldWriter<?> createForType(String path, LogicalType type, FieldVector vector) {
    LogicalTypeRoot root = type.getTypeRoot();
    switch (root) {
      case BOOLEAN:
        return vector instanceof BitVector
            ? LeafWriter.of(vector, path, LeafWriter.Kind.BOOLEAN)
            : null;
      case TINYINT:
        return vector instanceof TinyIntVector
            ? LeafWriter.of(vector, path, LeafWriter.Kind.TINYINT)
            : null;
      case SMALLINT:
        return vector instanceof SmallIntVector
            ? LeafWriter.of(vector, path, LeafWriter.Kind.SMALLINT)
            : null;
      case INTEGER:
        return vector instanceof IntVector
            ? LeafWriter.of(vector, path, LeafWriter.Kind.INT)
            : null;
      case BIGINT:
        return vector instanceof BigIntVector
            ? LeafWriter.of(vector, path, LeafWriter.Kind.BIGINT)
            : null;
      case FLOAT:
        return vector instanceof Float4Vector
            ? LeafWriter.of(vector, path, LeafWriter.Kind.FLOAT)
            : null;
      case DOUBLE:
        return vector instanceof Float8Vector
            ? LeafWriter.of(vector, path, LeafWriter.Kind.DOUBLE)
            : null;
      case DECIMAL:
        return decimal(path, (DecimalType) type, vector);
      case CHAR:
      case VARCHAR:
        if (vector instanceof VarCharVector) {
          return LeafWriter.of(vector, path, LeafWriter.Kind.STRING);
        }
        return vector instanceof LargeVarCharVector
            ? leaf(
                (LargeVarCharVector) vector,
                path,
                (v, s, p, i) -> v.setSafe(i, s.getString(p).toBytes()))
            : null;
      case BINARY:
      case VARBINARY:
        return binary(path, vector);
      case DATE:
        return vector instanceof DateDayVector
            ? leaf((DateDayVector) vector, path, (v, s, p, i) -> v.set(i, s.getInt(p)))
            : null;
      case TIME_WITHOUT_TIME_ZONE:
        return time(path, vector);
      case TIMESTAMP_WITHOUT_TIME_ZONE:
        return timestamp(path, ((TimestampType) type).getPrecision(), vector, false);
      case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
        return timestamp(path, ((LocalZonedTimestampType) type).getPrecision(), vector, true);
      case ARRAY:
        return array(path, (ArrayType) type, vector);
      case MAP:
        return map(path, (MapType) type, vector);
      case ROW:
        return vector instanceof StructVector
            ? struct(path, (RowType) type, (StructVector) vector)
            : null;
      default:
        throw new UnsupportedTypeException(path, type);
    }
  }

  private static <V extends FieldVector> FieldWriter<V> leaf(
      V vector, String path, LeafWriter.Setter<V> setter) {
    return LeafWriter.of(vector, path, setter);
  }

  private static FieldWriter<?> decimal(String path, DecimalType type, FieldVector vector) {
    if (!(vector instanceof DecimalVector)) {
      return null;
    }
    DecimalVector decimals = (DecimalVector) vector;
    if (decimals.getPrecision() != type.getPrecision() || decimals.getScale() != type.getScale()) {
      return null;
    }
    int precision = type.getPrecision();
    int scale = type.getScale();
    return leaf(
        decimals,
        path,
        (v, s, p, i) -> {
          DecimalData value = s.getDecimal(p, precision, scale);
          if (value.isCompact()) {
            v.set(i, value.toUnscaledLong());
          } else {
            v.setBigEndianSafe(i, value.toUnscaledBytes());
          }
        });
  }

  private static FieldWriter<?> binary(String path, FieldVector vector) {
    if (vector instanceof VarBinaryVector || vector instanceof LargeVarBinaryVector) {
      return leaf(
          (VariableWidthFieldVector) vector, path, (v, s, p, i) -> v.setSafe(i, s.getBinary(p)));
    }
    if (vector instanceof FixedSizeBinaryVector) {
      return leaf(
          (FixedSizeBinaryVector) vector,
          path,
          (v, s, p, i) -> {
            byte[] value = s.getBinary(p);
            if (value.length != v.getByteWidth()) {
              throw new InvalidValueException(
                  path,
                  String.format(
                      "expected exactly %d bytes, got %d", v.getByteWidth(), value.length));
            }
            v.setSafe(i, value);
          });
    }
    return null;
  }

  /** Flink holds TIME as milliseconds of the day whatever its declared precision. */
  private static FieldWriter<?> time(String path, FieldVector vector) {
    if (vector instanceof TimeMilliVector) {
      return leaf((TimeMilliVector) vector, path, (v, s, p, i) -> v.set(i, s.getInt(p)));
    }
    if (vector instanceof TimeMicroVector) {
      return leaf((TimeMicroVector) vector, path, (v, s, p, i) -> v.set(i, s.getInt(p) * 1_000L));
    }
    if (vector instanceof TimeNanoVector) {
      return leaf(
          (TimeNanoVector) vector, path, (v, s, p, i) -> v.set(i, s.getInt(p) * 1_000_000L));
    }
    if (vector instanceof TimeSecVector) {
      return leaf((TimeSecVector) vector, path, (v, s, p, i) -> v.set(i, s.getInt(p) / 1_000));
    }
    return null;
  }

  /** TIMESTAMP goes to a zone-less Arrow timestamp, TIMESTAMP_LTZ to one with a zone. */
  private static FieldWriter<?> timestamp(
      String path, int precision, FieldVector vector, boolean instant) {
    if (!(vector instanceof TimeStampVector)) {
      return null;
    }
    ArrowType.Timestamp arrowType = (ArrowType.Timestamp) vector.getField().getType();
    if ((arrowType.getTimezone() != null) != instant) {
      return null;
    }
    TimeUnit unit = arrowType.getUnit();
    if (unit == TimeUnit.MILLISECOND) {
      return LeafWriter.timestampMillis((TimeStampVector) vector, path, precision);
    }
    return leaf(
        (TimeStampVector) vector,
        path,
        (v, s, p, i) -> {
          TimestampData value = s.getTimestamp(p, precision);
          try {
            v.set(i, toEpochUnit(value, unit));
          } catch (ArithmeticException e) {
            throw new InvalidValueException(
                path, String.format("%s does not fit a timestamp in %s", value, unit));
          }
        });
  }

  static long toEpochUnit(TimestampData value, TimeUnit unit) {
    long millis = value.getMillisecond();
    switch (unit) {
      case SECOND:
        return Math.floorDiv(millis, 1_000L);
      case MILLISECOND:
        return millis;
      case MICROSECOND:
        return Math.multiplyExact(millis, 1_000L) + value.getNanoOfMillisecond() / 1_000;
      default:
        return Math.multiplyExact(millis, 1_000_000L) + value.getNanoOfMillisecond();
    }
  }

  private static FieldWriter<?> array(String path, ArrayType type, FieldVector vector) {
    String elementPath = path + "[]";
    if (vector instanceof FixedSizeListVector) {
      FixedSizeListVector vectors = (FixedSizeListVector) vector;
      FieldVector child = vectors.getDataVector();
      return new VectorWriter(
          vectors,
          path,
          create(elementPath, type.getElementType(), child),
          BulkElementCopier.of(type.getElementType(), child));
    }
    if (vector instanceof ListVector && !(vector instanceof MapVector)) {
      ListVector list = (ListVector) vector;
      FieldVector child = list.getDataVector();
      return new ListWriter(
          list,
          path,
          create(elementPath, type.getElementType(), child),
          BulkElementCopier.of(type.getElementType(), child));
    }
    return null;
  }

  private static FieldWriter<?> map(String path, MapType type, FieldVector vector) {
    if (!(vector instanceof MapVector)) {
      return null;
    }
    MapVector map = (MapVector) vector;
    StructVector entries = (StructVector) map.getDataVector();
    List<FieldVector> children = entries.getChildrenFromFields();
    FieldWriter<?> key = create(path + "{key}", type.getKeyType().copy(false), children.get(0));
    FieldWriter<?> value = create(path + "{value}", type.getValueType(), children.get(1));
    return new MapWriter(map, path, key, value);
  }

  private static FieldWriter<?> struct(String path, RowType type, StructVector vector) {
    List<FieldVector> children = vector.getChildrenFromFields();
    List<FieldWriter<?>> writers = new ArrayList<>(children.size());
    int[] positions =
        matchByName(path + ".", type, children.stream().map(FieldVector::getField).toList());
    for (int i = 0; i < children.size(); i++) {
      String childPath = path + "." + children.get(i).getField().getName();
      writers.add(forColumn(childPath, type, positions[i], children.get(i)));
    }
    return new StructWriter(vector, path, type.getFieldCount(), writers, positions);
  }

  /**
   * The writer of a table column (or ROW field) from the stream's field at {@code position}, or, at
   * {@link #ABSENT}, one that only ever writes NULL into it.
   */
  static FieldWriter<?> forColumn(String path, RowType stream, int position, FieldVector vector) {
    if (position != ABSENT) {
      return create(path, stream.getTypeAt(position), vector);
    }
    try {
      return create(path, ArrowTypeConverter.toLogicalType(vector.getField(), null), vector);
    } catch (RuntimeException e) {
      throw new SchemaMismatchException(
          String.format(
              "Column '%s' of the table is missing from the stream and cannot be filled with"
                  + " NULL: its type %s has no writer (%s)",
              path, vector.getField().getType(), e.getMessage()));
    }
  }

  /**
   * For each table column, the position of the stream field with that name, or {@link #ABSENT} for
   * a nullable column the stream lacks (another client added it, or the job's row type is older
   * than the table): it is written as NULL. Every stream field must exist in the table, and every
   * NOT NULL column in the stream.
   *
   * @param prefix prepended to names in error messages ("" at the top level, "a." inside a ROW)
   */
  static int[] matchByName(String prefix, RowType stream, List<Field> tableColumns) {
    List<String> names = tableColumns.stream().map(Field::getName).toList();
    for (String name : stream.getFieldNames()) {
      if (!names.contains(name)) {
        throw new SchemaMismatchException(
            String.format(
                "Column '%s%s' of the stream does not exist in the table; table columns are %s",
                prefix, name, names));
      }
    }
    int[] positions = new int[names.size()];
    for (int i = 0; i < positions.length; i++) {
      positions[i] = stream.getFieldIndex(names.get(i));
      if (positions[i] < 0 && !tableColumns.get(i).isNullable()) {
        throw new SchemaMismatchException(
            String.format(
                "Column '%s%s' of the table is NOT NULL and missing from the stream, which has no"
                    + " value for it; stream columns are %s",
                prefix, names.get(i), stream.getFieldNames()));
      }
    }
    return positions;
  }
}
