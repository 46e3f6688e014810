package dev.flinklance.table.catalog;

import dev.flinklance.access.TableLayout;
import dev.flinklance.schema.ColumnChange;
import dev.flinklance.schema.ColumnPath;
import dev.flinklance.schema.ColumnPosition;
import dev.flinklance.schema.SchemaEvolution;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.catalog.Column;
import org.apache.flink.table.catalog.ObjectPath;
import org.apache.flink.table.catalog.TableChange;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;

/**
 * The column changes of an ALTER TABLE as Lance column changes, for {@link SchemaEvolution} to make
 * in one commit. A new column's Lance type is the one CREATE TABLE would give it ({@link
 * TableLayout}: vector columns, compression), from the table's schema after the change. What Lance
 * cannot do in place (a type change, a computed column, a watermark) is refused here, naming the
 * table and the column and saying what works instead.
 */
final class AlterColumns {
  private final ObjectPath path;
  private final Schema newSchema; // the whole table after the change, as Lance would store it
  private final List<ColumnChange> changes = new ArrayList<>();

  private AlterColumns(ObjectPath path, Schema newSchema) {
    this.path = path;
    this.newSchema = newSchema;
  }

  /**
   * @param newRowType the table's physical columns after the change
   * @param layout the table's layout with the options it has after the change
   * @throws ValidationException for a change Lance cannot make in place
   */
  static List<ColumnChange> of(
      ObjectPath path, List<TableChange> tableChanges, RowType newRowType, TableLayout layout) {
    AlterColumns alter = new AlterColumns(path, layout.schemaFor(newRowType));
    tableChanges.forEach(alter::add);
    return alter.changes;
  }

  /** Whether the change is about columns (the rest are options, which the catalog sets itself). */
  static boolean isColumnChange(TableChange change) {
    return !(change instanceof TableChange.SetOption || change instanceof TableChange.ResetOption);
  }

  private void add(TableChange change) {
    if (change instanceof TableChange.AddColumn add) {
      Column column = physical(add.getColumn());
      Field field =
          ColumnComments.withComment(newField(List.of(column.getName())), column.getComment());
      changes.add(
          new ColumnChange.Add(
              ColumnPath.of(column.getName()), field, position(add.getPosition())));
    } else if (change instanceof TableChange.DropColumn drop) {
      changes.add(new ColumnChange.Drop(ColumnPath.of(drop.getColumnName())));
    } else if (change instanceof TableChange.ModifyColumn modify) {
      modify(modify);
    } else {
      throw new ValidationException(
          String.format(
              "Cannot alter table %s: the Lance catalog changes columns (ADD, DROP, RENAME,"
                  + " MODIFY) and options (SET, RESET), not %s. A table's primary key is fixed"
                  + " when it is created; watermarks, computed and metadata columns belong on a"
                  + " temporary table or view over it (CREATE TEMPORARY TABLE ... LIKE).",
              path.getFullName(), change));
    }
  }

  private void modify(TableChange.ModifyColumn modify) {
    Column before = physical(modify.getOldColumn());
    Column after = physical(modify.getNewColumn());
    ColumnPath column = ColumnPath.of(before.getName());
    // every change names the column as it was; the rename comes last
    changeType(
        column,
        before.getDataType().getLogicalType(),
        after.getDataType().getLogicalType(),
        List.of(after.getName()));
    if (!Objects.equals(before.getComment().orElse(null), after.getComment().orElse(null))) {
      changes.add(new ColumnChange.Comment(column, after.getComment().orElse(null)));
    }
    if (modify.getNewPosition() != null) {
      changes.add(new ColumnChange.Move(column, position(modify.getNewPosition())));
    }
    if (!before.getName().equals(after.getName())) {
      changes.add(new ColumnChange.Rename(column, after.getName()));
    }
  }

  /**
   * A new type Lance can take in place: NOT NULL dropped, or a ROW with nullable fields added or
   * fields removed (its other fields changing the same way). Any other type change is refused.
   *
   * @param newPath the column's names in the new schema (for the Arrow type of an added field)
   */
  private void changeType(
      ColumnPath column, LogicalType before, LogicalType after, List<String> newPath) {
    if (before.equals(after)) {
      return;
    }
    if (before instanceof RowType oldRow && after instanceof RowType newRow) {
      changeFields(column, oldRow, newRow, newPath);
    } else if (!before.copy(true).equals(after.copy(true))) {
      throw typeChange(column, before, after);
    }
    if (before.isNullable() != after.isNullable()) {
      if (!after.isNullable()) {
        throw new ValidationException(
            String.format(
                "Cannot make column %s of table %s NOT NULL: the rows the table has may hold"
                    + " NULL there, and Lance does not check them. Keep it nullable, or copy the"
                    + " table with CREATE TABLE ... AS SELECT ... WHERE %s IS NOT NULL.",
                column, path.getFullName(), column));
      }
      changes.add(new ColumnChange.DropNotNull(column));
    }
  }

  private void changeFields(ColumnPath row, RowType before, RowType after, List<String> newPath) {
    List<String> oldNames = before.getFieldNames();
    List<String> newNames = after.getFieldNames();
    List<String> keptInOldOrder = oldNames.stream().filter(newNames::contains).toList();
    List<String> keptInNewOrder = newNames.stream().filter(oldNames::contains).toList();
    if (!keptInOldOrder.equals(keptInNewOrder)) {
      throw new ValidationException(
          String.format(
              "Cannot reorder the fields of ROW column %s of table %s (from %s to %s): add"
                  + " fields, drop fields or relax NOT NULL, keeping the order of the others",
              row, path.getFullName(), before.asSummaryString(), after.asSummaryString()));
    }
    for (String name : oldNames) {
      if (!newNames.contains(name)) {
        changes.add(new ColumnChange.Drop(row.child(name)));
      }
    }
    for (int i = 0; i < newNames.size(); i++) {
      String name = newNames.get(i);
      List<String> fieldPath = new ArrayList<>(newPath);
      fieldPath.add(name);
      if (oldNames.contains(name)) {
        changeType(
            row.child(name),
            before.getTypeAt(before.getFieldIndex(name)),
            after.getTypeAt(i),
            fieldPath);
      } else {
        ColumnPosition position =
            i == newNames.size() - 1
                ? ColumnPosition.LAST
                : i == 0 ? ColumnPosition.FIRST : ColumnPosition.after(newNames.get(i - 1));
        changes.add(new ColumnChange.Add(row.child(name), newField(fieldPath), position));
      }
    }
  }

  /** The Arrow field CREATE TABLE would give the column or ROW field at {@code names}. */
  private Field newField(List<String> names) {
    List<Field> level = newSchema.getFields();
    Field field = null;
    for (String name : names) {
      field =
          level.stream()
              .filter(candidate -> candidate.getName().equals(name))
              .findFirst()
              .orElseThrow();
      level = field.getChildren();
    }
    return field;
  }

  private Column physical(Column column) {
    if (!column.isPhysical()) {
      throw new ValidationException(
          String.format(
              "Cannot alter column %s of table %s: tables in the Lance catalog have physical"
                  + " columns only (no computed or metadata columns). Declare those on a"
                  + " temporary table or view over it, e.g. CREATE TEMPORARY TABLE ... LIKE.",
              ColumnPath.of(column.getName()), path.getFullName()));
    }
    return column;
  }

  private ValidationException typeChange(ColumnPath column, LogicalType before, LogicalType after) {
    return new ValidationException(
        String.format(
            "Cannot change the type of column %s of table %s from %s to %s: Lance (lance-core"
                + " 7.0.0) cannot change a column's type in place. Add a column of the new type"
                + " instead (ALTER TABLE ... ADD) and write it from then on, or copy the table"
                + " with CREATE TABLE ... AS SELECT CAST(...).",
            column, path.getFullName(), before.asSummaryString(), after.asSummaryString()));
  }

  private static ColumnPosition position(TableChange.ColumnPosition position) {
    if (position == null) {
      return ColumnPosition.LAST;
    }
    if (position instanceof TableChange.After after) {
      return ColumnPosition.after(after.column());
    }
    return ColumnPosition.FIRST;
  }
}
