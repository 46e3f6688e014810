package dev.flinklance.compactor.testing;

import dev.flinklance.sink.dynamic.DynamicRecord;
import dev.flinklance.sink.dynamic.DynamicRecordTypeInfo;
import dev.flinklance.testing.LanceTestTables;
import java.io.Serializable;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.RowKind;

/**
 * Records of the dynamic sink for many tables of database {@code db}, and what each table holds
 * after them. Record {@code i} goes to table {@code i % tables}. Even tables have a primary key
 * {@code id} and get changes of {@code keys} keys (every 5th a delete); odd tables get appended
 * rows.
 */
public record DynamicTables(int tables, long count, int keys) implements Serializable {
  private static final RowType ROW_TYPE =
      RowType.of(
          new LogicalType[] {new BigIntType(false), new BigIntType()}, new String[] {"id", "v"});

  public static String name(int table) {
    return "t" + table;
  }

  public static boolean keyed(int table) {
    return table % 2 == 0;
  }

  public String uri(Path warehouse, int table) {
    return warehouse.resolve("db").resolve(name(table) + ".lance").toString();
  }

  public DynamicRecord record(long i) {
    int table = (int) (i % tables);
    long j = i / tables;
    if (!keyed(table)) {
      return DynamicRecord.append("db", name(table), ROW_TYPE, GenericRowData.of(j, i));
    }
    GenericRowData row = GenericRowData.of(Math.floorMod(j * 7919 + table, (long) keys), i);
    row.setRowKind(j % 5 == 4 ? RowKind.DELETE : RowKind.UPDATE_AFTER);
    return DynamicRecord.change("db", name(table), ROW_TYPE, row, List.of("id"));
  }

  public DataGeneratorSource<DynamicRecord> source(RateLimiterStrategy rateLimit) {
    return new DataGeneratorSource<>(this::record, count, rateLimit, new DynamicRecordTypeInfo());
  }

  /** Each table's rows: v by id. */
  public List<Map<Long, Long>> model() {
    List<Map<Long, Long>> model = new ArrayList<>();
    for (int t = 0; t < tables; t++) {
      model.add(new HashMap<>());
    }
    for (long i = 0; i < count; i++) {
      DynamicRecord record = record(i);
      Map<Long, Long> rows = model.get((int) (i % tables));
      if (record.row().getRowKind() == RowKind.DELETE) {
        rows.remove(record.row().getLong(0));
      } else {
        rows.put(record.row().getLong(0), record.row().getLong(1));
      }
    }
    return model;
  }

  /** A table's rows: v by id; fails on an id twice. */
  public static Map<Long, Long> rows(String uri) {
    Map<Long, Long> rows = new HashMap<>();
    for (List<Object> row : LanceTestTables.readColumns(uri, List.of("id", "v"))) {
      if (rows.put((Long) row.get(0), (Long) row.get(1)) != null) {
        throw new AssertionError("id " + row.get(0) + " twice in " + uri);
      }
    }
    return rows;
  }
}
