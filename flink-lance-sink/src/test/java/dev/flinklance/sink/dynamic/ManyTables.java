package dev.flinklance.sink.dynamic;

import dev.flinklance.testing.LanceTestTables;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.types.RowKind;

/**
 * Records for many tables from one stream, and what each table must hold after them. Record {@code
 * i} belongs to table {@code i % tables}, as that table's record {@code j = i / tables}. Even
 * tables have a primary key {@code id} and get changes of {@code keys} keys (every 7th a delete);
 * odd tables get appended rows. From the table's record {@code growAt} on, records carry one more
 * column, {@code note}; the older records of a table that grew keep coming without it (every 3rd),
 * as from a producer not yet upgraded.
 */
final class ManyTables implements Serializable {
  private static final long serialVersionUID = 1L;

  static final String DATABASE = "db";
  static final RowType NARROW =
      RowType.of(
          new org.apache.flink.table.types.logical.LogicalType[] {
            new BigIntType(false), new BigIntType()
          },
          new String[] {"id", "v"});
  static final RowType WIDE =
      RowType.of(
          new org.apache.flink.table.types.logical.LogicalType[] {
            new BigIntType(false), new BigIntType(), new VarCharType(VarCharType.MAX_LENGTH)
          },
          new String[] {"id", "v", "note"});

  private final int tables;
  private final long count;
  private final int keys;
  private final long growAt;

  ManyTables(int tables, long count, int keys, long growAt) {
    this.tables = tables;
    this.count = count;
    this.keys = keys;
    this.growAt = growAt;
  }

  static String table(int index) {
    return String.format("t%03d", index);
  }

  static boolean keyed(int table) {
    return table % 2 == 0;
  }

  DynamicRecord record(long i) {
    int table = (int) (i % tables);
    long j = i / tables;
    boolean wide = j >= growAt && j % 3 != 0;
    long id = keyed(table) ? Math.floorMod(j * 7919 + table, keys) : j;
    GenericRowData row =
        wide ? GenericRowData.of(id, j, StringData.fromString("n" + j)) : GenericRowData.of(id, j);
    if (!keyed(table)) {
      return DynamicRecord.append(DATABASE, table(table), wide ? WIDE : NARROW, row);
    }
    row.setRowKind(j % 7 == 6 ? RowKind.DELETE : j == 0 ? RowKind.INSERT : RowKind.UPDATE_AFTER);
    return DynamicRecord.change(DATABASE, table(table), wide ? WIDE : NARROW, row, List.of("id"));
  }

  DataGeneratorSource<DynamicRecord> source(RateLimiterStrategy rateLimit) {
    return new DataGeneratorSource<>(this::record, count, rateLimit, new DynamicRecordTypeInfo());
  }

  /** Each table's rows by id (appends: by their unique id) as [id, v, note]. */
  Map<String, Map<Long, List<Object>>> model() {
    Map<String, Map<Long, List<Object>>> model = new LinkedHashMap<>();
    for (int t = 0; t < tables; t++) {
      model.put(table(t), new HashMap<>());
    }
    for (long i = 0; i < count; i++) {
      DynamicRecord record = record(i);
      Map<Long, List<Object>> rows = model.get(record.table());
      long id = record.row().getLong(0);
      if (record.row().getRowKind() == RowKind.DELETE) {
        rows.remove(id);
      } else {
        String note = record.row().getArity() > 2 ? record.row().getString(2).toString() : null;
        List<Object> values = new ArrayList<>();
        values.add(id);
        values.add(record.row().getLong(1));
        values.add(note);
        rows.put(id, values);
      }
    }
    return model;
  }

  /** A table's rows by id as [id, v, note]; fails on a duplicate id. */
  static Map<Long, List<Object>> rows(String uri) {
    Map<Long, List<Object>> rows = new HashMap<>();
    for (List<Object> row : LanceTestTables.readColumns(uri, List.of("id", "v", "note"))) {
      List<Object> values = new ArrayList<>();
      values.add(row.get(0));
      values.add(row.get(1));
      values.add(row.get(2) == null ? null : row.get(2).toString());
      if (rows.put((Long) row.get(0), values) != null) {
        throw new AssertionError("id " + row.get(0) + " twice in " + uri);
      }
    }
    return rows;
  }
}
