package dev.flinklance.arrow.read;

import java.util.ArrayList;
import java.util.List;
import java.util.function.LongFunction;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.annotation.Internal;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.BinaryType;
import org.apache.flink.table.types.logical.BooleanType;
import org.apache.flink.table.types.logical.DateType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.DoubleType;
import org.apache.flink.table.types.logical.FloatType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.MapType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.SmallIntType;
import org.apache.flink.table.types.logical.TimeType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.flink.table.types.logical.TinyIntType;
import org.apache.flink.table.types.logical.VarBinaryType;
import org.apache.flink.table.types.logical.VarCharType;

/**
 * Maps a Lance table's Arrow schema to Flink types: the schema a catalog reports and a source
 * produces. Covers what the sink writes and what other Lance writers produce: large and view
 * strings/binaries, fixed-size binaries, fixed-size lists (vectors), timestamps in every unit with
 * or without a zone, dictionary-encoded values, and unsigned integers, which become the next wider
 * signed type so that no value overflows.
 *
 * <p>Arrow Java gives a dictionary-encoded field the type of its indices; the values' type is only
 * known to the reader's dictionaries, which is why conversions take the dictionaries' value fields
 * by id ({@link LanceReadSchema} gets them without reading data).
 */
@Internal
public final class ArrowTypeConverter {

  /** Digits of the largest uint64; DECIMAL(20, 0) holds every value. */
  private static final int UINT64_DIGITS = 20;

  private ArrowTypeConverter() {}

  /**
   * @param dictionaries the value field of each dictionary by id, or null if there are none
   * @throws UnsupportedArrowTypeException naming the first column without a Flink type
   */
  public static RowType toRowType(Schema schema, LongFunction<Field> dictionaries) {
    return toRowType(schema.getFields(), "", dictionaries);
  }

  /**
   * @param dictionaries the value field of each dictionary by id, or null if there are none
   * @throws UnsupportedArrowTypeException naming the column (path) without a Flink type
   */
  public static LogicalType toLogicalType(Field field, LongFunction<Field> dictionaries) {
    return toLogicalType(field, field.getName(), dictionaries);
  }

  /** The type of the values a field holds: the dictionary's for a dictionary-encoded field. */
  public static ArrowType valueType(Field field, LongFunction<Field> dictionaries) {
    DictionaryEncoding encoding = field.getDictionary();
    if (encoding == null) {
      return field.getType();
    }
    Field values = dictionaries == null ? null : dictionaries.apply(encoding.getId());
    if (values == null) {
      throw new IllegalArgumentException(
          String.format(
              "Column '%s' is dictionary-encoded, but its dictionary is unknown", field.getName()));
    }
    return values.getType();
  }

  /** The value fields of a reader's (or batch's) dictionaries. */
  public static LongFunction<Field> valuesOf(DictionaryProvider provider) {
    return id -> {
      Dictionary dictionary = provider.lookup(id);
      return dictionary == null ? null : dictionary.getVector().getField();
    };
  }

  private static RowType toRowType(
      List<Field> fields, String prefix, LongFunction<Field> dictionaries) {
    List<RowType.RowField> rowFields = new ArrayList<>(fields.size());
    for (Field field : fields) {
      rowFields.add(
          new RowType.RowField(
              field.getName(), toLogicalType(field, prefix + field.getName(), dictionaries)));
    }
    return new RowType(rowFields);
  }

  private static LogicalType toLogicalType(
      Field field, String path, LongFunction<Field> dictionaries) {
    return toLogicalTypeNotNull(field, path, dictionaries).copy(field.isNullable());
  }

  private static LogicalType toLogicalTypeNotNull(
      Field field, String path, LongFunction<Field> dictionaries) {
    ArrowType type = valueType(field, dictionaries);
    switch (type.getTypeID()) {
      case Bool:
        return new BooleanType();
      case Int:
        return integer((ArrowType.Int) type);
      case FloatingPoint:
        return ((ArrowType.FloatingPoint) type).getPrecision() == FloatingPointPrecision.DOUBLE
            ? new DoubleType()
            : new FloatType();
      case Decimal:
        ArrowType.Decimal decimal = (ArrowType.Decimal) type;
        if (decimal.getPrecision() > DecimalType.MAX_PRECISION || decimal.getScale() < 0) {
          throw new UnsupportedArrowTypeException(path, type);
        }
        return new DecimalType(decimal.getPrecision(), decimal.getScale());
      case Utf8:
      case LargeUtf8:
      case Utf8View:
        return VarCharType.STRING_TYPE;
      case Binary:
      case LargeBinary:
      case BinaryView:
        return new VarBinaryType(VarBinaryType.MAX_LENGTH);
      case FixedSizeBinary:
        return new BinaryType(((ArrowType.FixedSizeBinary) type).getByteWidth());
      case Date:
        return new DateType();
      case Time:
        return new TimeType(precision(((ArrowType.Time) type).getUnit()));
      case Timestamp:
        ArrowType.Timestamp timestamp = (ArrowType.Timestamp) type;
        int precision = precision(timestamp.getUnit());
        return timestamp.getTimezone() == null
            ? new TimestampType(precision)
            : new LocalZonedTimestampType(precision);
      case List:
      case LargeList:
        return new ArrayType(toLogicalType(field.getChildren().get(0), path + "[]", dictionaries));
      case FixedSizeList:
        // Lance does not keep the nullability of a vector's elements (it reports them nullable
        // whatever was written); vectors are null-free, which is also what the sink's bulk copy
        // of embeddings and Lance's vector indexes expect.
        return new ArrayType(
            toLogicalType(field.getChildren().get(0), path + "[]", dictionaries).copy(false));
      case Map:
        Field entries = field.getChildren().get(0);
        Field key = entries.getChildren().get(0);
        Field value = entries.getChildren().get(1);
        return new MapType(
            toLogicalType(key, path + "{key}", dictionaries),
            toLogicalType(value, path + "{value}", dictionaries));
      case Struct:
        return toRowType(field.getChildren(), path + ".", dictionaries);
      default:
        throw new UnsupportedArrowTypeException(path, type);
    }
  }

  private static LogicalType integer(ArrowType.Int type) {
    int bits = type.getBitWidth();
    if (type.getIsSigned()) {
      switch (bits) {
        case 8:
          return new TinyIntType();
        case 16:
          return new SmallIntType();
        case 32:
          return new IntType();
        default:
          return new BigIntType();
      }
    }
    switch (bits) {
      case 8:
        return new SmallIntType();
      case 16:
        return new IntType();
      case 32:
        return new BigIntType();
      default:
        return new DecimalType(UINT64_DIGITS, 0);
    }
  }

  /** Fractional-second digits of a unit: the Flink precision that holds it exactly. */
  static int precision(TimeUnit unit) {
    switch (unit) {
      case SECOND:
        return 0;
      case MILLISECOND:
        return 3;
      case MICROSECOND:
        return 6;
      default:
        return 9;
    }
  }
}
