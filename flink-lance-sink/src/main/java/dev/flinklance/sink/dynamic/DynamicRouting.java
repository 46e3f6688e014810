package dev.flinklance.sink.dynamic;

import dev.flinklance.key.PrimaryKey;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.functions.Partitioner;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.util.MathUtils;

/**
 * Routes the dynamic sink's records to writers: a change by key to the writer of its table and key
 * (all changes of a key reach one writer, in order), an appended row to one of {@code
 * sink.dynamic.writers-per-table} writers of its table, in turn. A custom partitioner, not {@code
 * keyBy}, for the reason {@code RoutingKey} gives (BATCH sorts keyed input without keeping order).
 */
final class DynamicRouting implements KeySelector<DynamicRecord, String> {
  private static final long serialVersionUID = 1L;
  private static final char KEYED = 'k';
  private static final char APPENDED = 'a';
  private static final int MAX_CACHED_KEYS = 1024;

  private transient Map<KeyOf, PrimaryKey> keys;

  private record KeyOf(RowType rowType, List<String> columns) {}

  @Override
  public String getKey(DynamicRecord record) {
    String table = TableName.of(record).toString();
    if (!record.keyed()) {
      return APPENDED + table;
    }
    PrimaryKey key;
    try {
      key = keyOf(record);
    } catch (IllegalArgumentException e) {
      return KEYED + table; // any writer: it rejects the record, naming the key
    }
    String routing =
        key.nullColumn(record.row()) == null ? key.keyOf(record.row()).routingKey() : "";
    return KEYED + table + '\u0000' + routing;
  }

  private PrimaryKey keyOf(DynamicRecord record) {
    if (keys == null || keys.size() > MAX_CACHED_KEYS) {
      keys = new HashMap<>();
    }
    return keys.computeIfAbsent(
        new KeyOf(record.rowType(), record.primaryKey()),
        k -> PrimaryKey.of(k.rowType(), k.columns(), record.table()));
  }

  /** The writer of a routing key. */
  static final class ToWriter implements Partitioner<String> {
    private static final long serialVersionUID = 1L;
    private final int writersPerTable;
    private int turn;

    ToWriter(int writersPerTable) {
      this.writersPerTable = writersPerTable;
    }

    @Override
    public int partition(String routing, int writers) {
      int hash = MathUtils.murmurHash(routing.hashCode());
      if (routing.charAt(0) == KEYED) {
        return hash % writers;
      }
      turn = (turn + 1) % writersPerTable;
      return Math.floorMod(hash + turn, writers);
    }
  }
}
