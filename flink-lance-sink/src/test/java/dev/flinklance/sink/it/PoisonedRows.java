package dev.flinklance.sink.it;

import dev.flinklance.testing.TestRows;
import java.util.List;
import java.util.stream.LongStream;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;

/** {@link TestRows} where every id divisible by 997 comes as a record with a null (NOT NULL) id. */
final class PoisonedRows {
  private static final long EVERY = 997;

  private PoisonedRows() {}

  static RowData poison(RowData row) {
    long id = row.getLong(0);
    return id % EVERY == 0 ? GenericRowData.of(null, StringData.fromString("poison-" + id)) : row;
  }

  static List<Long> goodIds(long rows) {
    return LongStream.range(0, rows).filter(id -> id % EVERY != 0).boxed().toList();
  }

  static long poisoned(long rows) {
    return rows - goodIds(rows).size();
  }
}
