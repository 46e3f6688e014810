package dev.flinklance.sink;

import dev.flinklance.key.PrimaryKey;
import org.apache.flink.api.common.functions.Partitioner;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.table.data.RowData;
import org.apache.flink.util.MathUtils;
import org.apache.flink.util.function.SerializableFunction;

/**
 * Routes each record of a sink with a primary key to the writer of its key, so that all changes of
 * a key reach one writer in the order they were sent. A record whose key has a NULL goes anywhere:
 * its writer rejects it.
 *
 * <p>Records are routed by a custom partitioner, not by {@code keyBy}: {@code keyBy} makes the
 * writer a keyed operator, and in {@code BATCH} execution Flink sorts a keyed operator's input by
 * key with a sort that does not keep the order of equal keys, so older changes of a key would win.
 * The writer keeps no keyed state, so it needs no key groups either.
 */
final class RoutingKey<T> implements KeySelector<T, String> {
  private static final long serialVersionUID = 1L;

  private final SerializableFunction<T, RowData> toRowData;
  private final PrimaryKey key;

  RoutingKey(SerializableFunction<T, RowData> toRowData, PrimaryKey key) {
    this.toRowData = toRowData;
    this.key = key;
  }

  @Override
  public String getKey(T record) {
    RowData row = toRowData.apply(record);
    return key.nullColumn(row) == null ? key.keyOf(row).routingKey() : "";
  }

  /** A key's writer: from the routing string's hash, which every JVM computes the same. */
  static final class ToWriter implements Partitioner<String> {
    private static final long serialVersionUID = 1L;

    @Override
    public int partition(String routingKey, int writers) {
      return MathUtils.murmurHash(routingKey.hashCode()) % writers;
    }
  }
}
