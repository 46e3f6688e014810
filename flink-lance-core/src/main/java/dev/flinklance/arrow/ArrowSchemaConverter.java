package dev.flinklance.arrow;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.annotation.Internal;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.MapType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.TimeType;
import org.apache.flink.table.types.logical.TimestampType;

/**
 * Maps a Flink {@link RowType} to the Arrow schema a new Lance table is created with. Every
 * unsupported type is reported here, with its column path, so a sink fails when it is built rather
 * than at the first record.
 */
@Internal
public final class ArrowSchemaConverter {

  /** Arrow's conventional child names; Lance and pyarrow readers expect them. */
  static final String LIST_ITEM = "item";

  static final String MAP_ENTRIES = "entries";
  static final String MAP_KEY = "key";
  static final String MAP_VALUE = "value";

  private ArrowSchemaConverter() {}

  /**
   * @param vectorColumns top-level ARRAY columns to write as FixedSizeList, with their dimension
   * @throws UnsupportedTypeException naming the first column whose type has no Lance mapping
   * @throws IllegalArgumentException naming a top-level column Lance would refuse
   */
  public static Schema toArrowSchema(RowType rowType, Map<String, Integer> vectorColumns) {
    VectorColumns.validate(rowType, vectorColumns);
    List<Field> fields = new ArrayList<>();
    for (RowType.RowField field : rowType.getFields()) {
      if (field.getName().contains(".")) {
        // Lance reads a dotted top-level name as a path into a struct and refuses the schema
        throw new IllegalArgumentException(
            String.format(
                "Column '%s': a top-level Lance column name must not contain '.' (Lance reads it"
                    + " as a nested field path); rename the column, or nest it in a ROW",
                field.getName()));
      }
      Integer dimension = vectorColumns.get(field.getName());
      fields.add(
          dimension == null
              ? toField(field.getName(), field.getName(), field.getType())
              : toVectorField(field.getName(), (ArrayType) field.getType(), dimension));
    }
    return new Schema(fields);
  }

  private static Field toVectorField(String name, ArrayType type, int dimension) {
    Field item = toField(LIST_ITEM, name + "[]", type.getElementType());
    return new Field(
        name,
        new FieldType(type.isNullable(), new ArrowType.FixedSizeList(dimension), null),
        List.of(item));
  }

  static Field toField(String name, String path, LogicalType type) {
    FieldType fieldType = new FieldType(type.isNullable(), toArrowType(path, type), null);
    switch (type.getTypeRoot()) {
      case ARRAY:
        return new Field(
            name,
            fieldType,
            List.of(toField(LIST_ITEM, path + "[]", ((ArrayType) type).getElementType())));
      case MAP:
        MapType mapType = (MapType) type;
        Field key = toField(MAP_KEY, path + "{key}", mapType.getKeyType().copy(false));
        Field value = toField(MAP_VALUE, path + "{value}", mapType.getValueType());
        Field entries =
            new Field(
                MAP_ENTRIES, FieldType.notNullable(ArrowType.Struct.INSTANCE), List.of(key, value));
        return new Field(name, fieldType, List.of(entries));
      case ROW:
        List<Field> children = new ArrayList<>();
        for (RowType.RowField child : ((RowType) type).getFields()) {
          children.add(toField(child.getName(), path + "." + child.getName(), child.getType()));
        }
        return new Field(name, fieldType, children);
      default:
        return new Field(name, fieldType, null);
    }
  }

  private static ArrowType toArrowType(String path, LogicalType type) {
    switch (type.getTypeRoot()) {
      case BOOLEAN:
        return ArrowType.Bool.INSTANCE;
      case TINYINT:
        return new ArrowType.Int(8, true);
      case SMALLINT:
        return new ArrowType.Int(16, true);
      case INTEGER:
        return new ArrowType.Int(32, true);
      case BIGINT:
        return new ArrowType.Int(64, true);
      case FLOAT:
        return new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE);
      case DOUBLE:
        return new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);
      case DECIMAL:
        DecimalType decimal = (DecimalType) type;
        return new ArrowType.Decimal(decimal.getPrecision(), decimal.getScale(), 128);
      case CHAR:
      case VARCHAR:
        return ArrowType.Utf8.INSTANCE;
      case BINARY:
      case VARBINARY:
        return ArrowType.Binary.INSTANCE;
      case DATE:
        return new ArrowType.Date(DateUnit.DAY);
      case TIME_WITHOUT_TIME_ZONE:
        return timeType(((TimeType) type).getPrecision());
      case TIMESTAMP_WITHOUT_TIME_ZONE:
        return new ArrowType.Timestamp(timeUnit(((TimestampType) type).getPrecision()), null);
      case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
        return new ArrowType.Timestamp(
            timeUnit(((LocalZonedTimestampType) type).getPrecision()), "UTC");
      case ARRAY:
        return ArrowType.List.INSTANCE;
      case MAP:
        return new ArrowType.Map(false);
      case ROW:
        return ArrowType.Struct.INSTANCE;
      default:
        throw new UnsupportedTypeException(path, type);
    }
  }

  /** TIME keeps the declared precision so other readers see the unit the user asked for. */
  private static ArrowType timeType(int precision) {
    if (precision <= 3) {
      return new ArrowType.Time(TimeUnit.MILLISECOND, 32);
    }
    return new ArrowType.Time(precision <= 6 ? TimeUnit.MICROSECOND : TimeUnit.NANOSECOND, 64);
  }

  private static TimeUnit timeUnit(int precision) {
    if (precision <= 3) {
      return TimeUnit.MILLISECOND;
    }
    return precision <= 6 ? TimeUnit.MICROSECOND : TimeUnit.NANOSECOND;
  }

  /**
   * The Lance file format version to create a table of {@code schema} with: {@code configured}, or
   * when unset 2.2 if the schema has a MAP column (MAP needs 2.2) or a compressed column (2.2
   * compresses better; docs/benchmark.md), else null for Lance's default.
   */
  public static String storageVersionFor(Schema schema, String configured) {
    if (configured != null) {
      return configured;
    }
    return containsMap(schema) || ColumnCompression.compressesAny(schema) ? "2.2" : null;
  }

  /** True if any field, at any depth, is an Arrow Map (Lance needs file format 2.2 for it). */
  public static boolean containsMap(Schema schema) {
    return schema.getFields().stream().anyMatch(ArrowSchemaConverter::containsMap);
  }

  private static boolean containsMap(Field field) {
    return field.getType() instanceof ArrowType.Map
        || field.getChildren().stream().anyMatch(ArrowSchemaConverter::containsMap);
  }
}
