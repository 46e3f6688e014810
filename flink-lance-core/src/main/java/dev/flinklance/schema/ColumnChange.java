package dev.flinklance.schema;

import org.apache.arrow.vector.types.pojo.Field;
import org.apache.flink.annotation.Internal;

/**
 * One change to a table's columns that Lance makes without rewriting data: a new version whose
 * schema differs, every data file kept. {@link SchemaEvolution} applies a list of them as one
 * commit.
 */
@Internal
public sealed interface ColumnChange {

  /** The column the change is about (for a new column, the one it creates). */
  ColumnPath column();

  /**
   * A new nullable column, NULL in every existing row; a field of a ROW column when {@code column}
   * has a parent.
   *
   * @param field the new column's Arrow field, its name the last of {@code column}
   */
  record Add(ColumnPath column, Field field, ColumnPosition position) implements ColumnChange {
    @Override
    public String toString() {
      return "ADD " + column + " " + field.getType() + position;
    }
  }

  /** The column is gone from the new version on; its data stays readable in older versions. */
  record Drop(ColumnPath column) implements ColumnChange {
    @Override
    public String toString() {
      return "DROP " + column;
    }
  }

  /** The same column, its data kept, under a new name. */
  record Rename(ColumnPath column, String newName) implements ColumnChange {
    @Override
    public String toString() {
      return "RENAME " + column + " TO " + ColumnPath.quote(newName);
    }
  }

  /** A NOT NULL column made nullable. */
  record DropNotNull(ColumnPath column) implements ColumnChange {
    @Override
    public String toString() {
      return "MODIFY " + column + " NULL";
    }
  }

  /**
   * The column's comment, kept in its Lance field metadata under {@link SchemaEvolution#COMMENT};
   * null removes it.
   */
  record Comment(ColumnPath column, String comment) implements ColumnChange {
    @Override
    public String toString() {
      return "COMMENT " + column + (comment == null ? " NULL" : " '" + comment + "'");
    }
  }

  /** The column moved among its siblings. */
  record Move(ColumnPath column, ColumnPosition position) implements ColumnChange {
    @Override
    public String toString() {
      return "MODIFY " + column + position;
    }
  }
}
