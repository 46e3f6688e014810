package dev.flinklance.sink;

import dev.flinklance.key.PrimaryKey;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.table.data.RowData;
import org.apache.flink.util.function.SerializableFunction;

/**
 * Routes each record of a sink with a primary key to the writer of its key, so that all changes of
 * a key reach one writer in the order they were sent. A record whose key has a NULL goes anywhere:
 * its writer rejects it.
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
}
