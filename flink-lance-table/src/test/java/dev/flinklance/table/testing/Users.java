package dev.flinklance.table.testing;

import dev.flinklance.access.TableRef;
import dev.flinklance.arrow.write.ArrowBatchWriter;
import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.TestTables;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.RowType;
import org.lance.Dataset;

/**
 * A feature table for lookup tests: {@code id BIGINT NOT NULL, tenant STRING, region INT, name
 * STRING}. Row {@code i} of generation {@code g} is {@code (i, 't' + i % 3, i % 10, 'user-i-g')};
 * every fifth row of a generation has a NULL region, so that a lookup by region meets NULLs.
 */
public final class Users {
  public static final RowType ROW_TYPE =
      (RowType)
          DataTypes.ROW(
                  DataTypes.FIELD("id", DataTypes.BIGINT().notNull()),
                  DataTypes.FIELD("tenant", DataTypes.STRING()),
                  DataTypes.FIELD("region", DataTypes.INT()),
                  DataTypes.FIELD("name", DataTypes.STRING()))
              .getLogicalType();

  public static final List<String> COLUMNS = ROW_TYPE.getFieldNames();

  /** The DDL columns of the table. */
  public static final String DDL_COLUMNS =
      "id BIGINT NOT NULL, tenant STRING, region INT, name STRING";

  private Users() {}

  public static RowData row(long id, int generation) {
    return GenericRowData.of(
        id,
        StringData.fromString("t" + id % 3),
        id % 5 == 4 ? null : (int) (id % 10),
        StringData.fromString("user-" + id + "-" + generation));
  }

  /** Rows {@code from} to {@code to} (exclusive) of a generation. */
  public static List<RowData> rows(long from, long to, int generation) {
    List<RowData> rows = new ArrayList<>();
    for (long id = from; id < to; id++) {
      rows.add(row(id, generation));
    }
    return rows;
  }

  /** A new table of rows {@code 0} to {@code count}, generation 0. */
  public static void write(String uri, long count, int rowsPerFragment) {
    TestTables.write(uri, ROW_TYPE, rows(0, count, 0), rowsPerFragment);
  }

  /** The table's rows read with plain Lance, each as its column values, by id. */
  public static Map<Long, List<Object>> read(String uri, Map<String, String> storageOptions) {
    Map<Long, List<Object>> rows = new TreeMap<>();
    for (List<Object> row : LanceTestTables.readColumns(uri, storageOptions, COLUMNS)) {
      List<Object> values =
          row.stream()
              .map(v -> v == null || v instanceof Long || v instanceof Integer ? v : v.toString())
              .collect(Collectors.toList());
      rows.put((Long) values.get(0), values);
    }
    return rows;
  }

  /** A local table. */
  public static TableRef local(String uri) {
    return new TableRef(uri, Map.of());
  }

  /** Lance's own merge-insert of {@code rows} on {@code id}: one new version. */
  public static void mergeInsert(TableRef table, List<RowData> rows) {
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = table.open(allocator);
        ArrowBatchWriter batch =
            ArrowBatchWriter.create(ROW_TYPE, dataset.getSchema(), allocator)) {
      rows.forEach(batch::write);
      LanceTestTables.mergeInsert(dataset, List.of("id"), batch.seal()).close();
    }
  }

  /** Lance's own delete: one new version. */
  public static void delete(TableRef table, String filter) {
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = table.open(allocator)) {
      dataset.delete(filter);
    }
  }
}
