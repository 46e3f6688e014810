package dev.flinklance.iceberg;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.types.RowKind;

/**
 * Records for many tables from one stream, one deterministic function of the record's number, and
 * what each table must hold after them: the same records go through both sinks. Record {@code i}
 * belongs to table {@code i % tables}, as that table's record {@code j = i / tables}.
 *
 * <p>A keyed table gets changes of {@code keys} keys by its key {@code id} (every 7th a delete), an
 * appended table rows of unique ids. From a table's record {@code growAt} on, records carry a third
 * column, {@code note}; with {@code laggards}, every 3rd of them still comes without it, as from a
 * producer not yet upgraded.
 */
final class Workload implements Records {
  private static final long serialVersionUID = 1L;

  static final String DATABASE = "db";
  static final List<String> COLUMNS = List.of("id", "v", "note");
  static final RowType NARROW =
      RowType.of(
          new LogicalType[] {new BigIntType(false), new BigIntType()}, new String[] {"id", "v"});
  static final RowType WIDE =
      RowType.of(
          new LogicalType[] {
            new BigIntType(false), new BigIntType(), new VarCharType(VarCharType.MAX_LENGTH)
          },
          COLUMNS.toArray(String[]::new));

  /** Which tables have a key. */
  enum Keys {
    NONE,
    ALL,
    EVEN_TABLES
  }

  private final int tables;
  private final long count;
  private final Keys keyed;
  private final int keys;
  private final long growAt;
  private final boolean laggards;

  Workload(int tables, long count, Keys keyed, int keys, long growAt, boolean laggards) {
    this.tables = tables;
    this.count = count;
    this.keyed = keyed;
    this.keys = keys;
    this.growAt = growAt;
    this.laggards = laggards;
  }

  /** Half the tables keyed, half appended, every table growing mid-stream with laggards. */
  static Workload mixed(int tables, long count, int keys) {
    return new Workload(tables, count, Keys.EVEN_TABLES, keys, count / tables / 2, true);
  }

  /** Rows of (id, v, note) appended to every table. */
  static Workload appends(int tables, long count) {
    return new Workload(tables, count, Keys.NONE, 0, 0, false);
  }

  /** Changes of (id, v, note) by key to every table. */
  static Workload upserts(int tables, long count, int keys) {
    return new Workload(tables, count, Keys.ALL, keys, 0, false);
  }

  static String table(int index) {
    return String.format("t%03d", index);
  }

  @Override
  public long count() {
    return count;
  }

  @Override
  public List<String> tables() {
    List<String> names = new ArrayList<>(tables);
    for (int t = 0; t < tables; t++) {
      names.add(table(t));
    }
    return names;
  }

  @Override
  public String table(long i) {
    return table(tableOf(i));
  }

  private int tableOf(long i) {
    return (int) (i % tables);
  }

  @Override
  public boolean keyed(long i) {
    int table = tableOf(i);
    return keyed == Keys.ALL || (keyed == Keys.EVEN_TABLES && table % 2 == 0);
  }

  @Override
  public RowType rowType(long i) {
    long j = i / tables;
    return j >= growAt && !(laggards && j % 3 == 0) ? WIDE : NARROW;
  }

  @Override
  public RowData row(long i) {
    int table = tableOf(i);
    long j = i / tables;
    long id = keyed(i) ? Math.floorMod(j * 7919 + table, keys) : j;
    GenericRowData row =
        rowType(i) == WIDE
            ? GenericRowData.of(id, j, StringData.fromString("n" + j))
            : GenericRowData.of(id, j);
    if (keyed(i)) {
      row.setRowKind(j % 7 == 6 ? RowKind.DELETE : j == 0 ? RowKind.INSERT : RowKind.UPDATE_AFTER);
    }
    return row;
  }

  /** Each table's rows by id as [id, v, note]. */
  Map<String, Map<Long, List<Object>>> model() {
    Map<String, Map<Long, List<Object>>> model = new LinkedHashMap<>();
    for (String table : tables()) {
      model.put(table, new HashMap<>());
    }
    for (long i = 0; i < count; i++) {
      RowData row = row(i);
      Map<Long, List<Object>> rows = model.get(table(i));
      if (row.getRowKind() == RowKind.DELETE) {
        rows.remove(row.getLong(0));
      } else {
        rows.put(
            row.getLong(0),
            TableRows.values(
                row.getLong(0), row.getLong(1), row.getArity() > 2 ? row.getString(2) : null));
      }
    }
    return model;
  }

  /** What the records do to the tables, whatever their number. */
  String kind() {
    return switch (keyed) {
      case NONE -> "appended";
      case ALL -> "upserts and deletes by key over " + keys + " keys a table";
      case EVEN_TABLES -> "half appended, half changed by key";
    };
  }
}
