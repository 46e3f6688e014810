package dev.flinklance.sink.dynamic;

import java.util.ArrayList;
import java.util.List;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.utils.LogicalTypeParser;

/**
 * Row types of the dynamic sink's records: their wire form, and how the schemas of two records of
 * one table combine.
 */
final class RowTypes {
  private RowTypes() {}

  /** The type's text form, which {@link #parse} reads back (Flink SQL's type syntax). */
  static String text(RowType type) {
    return type.asSerializableString();
  }

  static RowType parse(String text) {
    return (RowType) LogicalTypeParser.parse(text, RowTypes.class.getClassLoader());
  }

  /** The key columns of {@code rowType}, as a row type of their own. */
  static RowType keyType(RowType rowType, List<String> key) {
    List<RowType.RowField> fields = new ArrayList<>();
    for (String column : key) {
      fields.add(rowType.getFields().get(rowType.getFieldIndex(column)));
    }
    return new RowType(false, fields);
  }

  /**
   * Whether rows of {@code narrow} can be written as rows of {@code wide}: each of its columns is
   * one of {@code wide}'s, of the same type (nullability aside: a NOT NULL column of {@code wide}
   * rejects the nulls it gets).
   */
  static boolean covers(RowType wide, RowType narrow) {
    for (RowType.RowField field : narrow.getFields()) {
      int index = wide.getFieldIndex(field.getName());
      if (index < 0 || !sameType(wide.getTypeAt(index), field.getType())) {
        return false;
      }
    }
    return true;
  }

  /**
   * {@code current}'s columns, then the columns of {@code record} it lacks, nullable (a column
   * added to a table cannot be NOT NULL: its older rows have no value).
   *
   * @throws IllegalArgumentException naming the table, the column and both types, where a column
   *     has another type in {@code record} (lance-core cannot change a column's type in place)
   */
  static RowType union(RowType current, RowType record, String table) {
    List<RowType.RowField> fields = new ArrayList<>(current.getFields());
    for (RowType.RowField field : record.getFields()) {
      int index = current.getFieldIndex(field.getName());
      if (index < 0) {
        fields.add(
            new RowType.RowField(
                field.getName(), field.getType().copy(true), field.getDescription().orElse(null)));
      } else if (!sameType(current.getTypeAt(index), field.getType())) {
        throw new IllegalArgumentException(
            String.format(
                "Column '%s' of Lance table '%s' is %s, but a record has it as %s: the table's"
                    + " column types cannot change (lance-core 7.0.0 has no in-place type change);"
                    + " write the column under a new name, or recreate the table",
                field.getName(),
                table,
                current.getTypeAt(index).asSummaryString(),
                field.getType().asSummaryString()));
      }
    }
    return new RowType(current.isNullable(), fields);
  }

  private static boolean sameType(LogicalType a, LogicalType b) {
    return a.copy(true).equals(b.copy(true));
  }
}
