package dev.flinklance.sink.dynamic;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;

/** TEMPORARY STUB of the lead's DynamicRecord (reverted before merging main). */
@PublicEvolving
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

  public static DynamicRecord append(
      String database, String table, RowType rowType, RowData row) {
    return new DynamicRecord(database, table, rowType, row, List.of(), Map.of());
  }

  public static DynamicRecord change(
      String database, String table, RowType rowType, RowData row, List<String> primaryKey) {
    return new DynamicRecord(database, table, rowType, row, primaryKey, Map.of());
  }
}
