package dev.flinklance.sink.dynamic;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.api.common.typeinfo.TypeInfo;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.RowKind;

/**
 * One record for a {@link DynamicLanceSink}: the row, the table it belongs to, and the schema it
 * has. The sink writes it to the Lance table {@code <warehouse>/<database>/<table>.lance} (the
 * layout of the Lance catalog and of Lance's directory namespace), creating the table at its first
 * record and adding the columns a later record brings.
 *
 * <p>A record with a primary key is a change applied by key: its {@link RowKind} says whether it
 * upserts ({@code INSERT}, {@code UPDATE_AFTER}) or deletes ({@code DELETE}, {@code UPDATE_BEFORE})
 * the key's row. Without one it is appended, and must be an {@code INSERT}. Every record of a table
 * must agree on the key.
 *
 * @param database the table's database: a plain name, one path segment
 * @param table the table's name: a plain name, one path segment
 * @param rowType the row's columns, in the order of {@code row}'s fields
 * @param row the values
 * @param primaryKey the table's primary key columns, empty for a table the sink appends to
 * @param vectorColumns ARRAY columns written as fixed-dimension vectors (Arrow FixedSizeList), by
 *     column name, besides the sink's {@code vector-columns}
 */
@PublicEvolving
@TypeInfo(DynamicRecordTypeInfo.Factory.class)
public record DynamicRecord(
    String database,
    String table,
    RowType rowType,
    RowData row,
    List<String> primaryKey,
    Map<String, Integer> vectorColumns) {

  public DynamicRecord {
    Objects.requireNonNull(database, "database");
    Objects.requireNonNull(table, "table");
    Objects.requireNonNull(rowType, "rowType");
    Objects.requireNonNull(row, "row");
    primaryKey = List.copyOf(primaryKey);
    vectorColumns = Map.copyOf(vectorColumns);
  }

  /** A row to append to {@code database.table}. */
  public static DynamicRecord append(String database, String table, RowType rowType, RowData row) {
    return new DynamicRecord(database, table, rowType, row, List.of(), Map.of());
  }

  /** A change of the row of its key in {@code database.table}; the row's kind says which. */
  public static DynamicRecord change(
      String database, String table, RowType rowType, RowData row, List<String> primaryKey) {
    return new DynamicRecord(database, table, rowType, row, primaryKey, Map.of());
  }

  /** This record, with the given ARRAY columns written as vectors of that many floats each. */
  public DynamicRecord withVectorColumns(Map<String, Integer> vectors) {
    return new DynamicRecord(database, table, rowType, row, primaryKey, vectors);
  }

  /** Whether the record is a change by key rather than an appended row. */
  public boolean keyed() {
    return !primaryKey.isEmpty();
  }
}
