package dev.flinklance.key;

import java.util.Arrays;
import java.util.StringJoiner;
import org.apache.flink.annotation.Internal;

/**
 * The primary key of one row: one value per key column, in the key's column order, each in its
 * {@link KeyType}'s Java form (never null). Equal keys are equal objects with equal hash codes in
 * every JVM, so a key can route records ({@link #routingKey()}) and be looked up in a table. Keys
 * of one primary key are ordered column by column.
 */
@Internal
public final class RowKey implements Comparable<RowKey> {
  private final Object[] values;

  RowKey(Object[] values) {
    this.values = values;
  }

  int size() {
    return values.length;
  }

  Object value(int column) {
    return values[column];
  }

  /**
   * A string equal for equal keys only, to route records to writers by: they are partitioned by its
   * {@code hashCode}, which a String computes the same in every JVM. Values are tagged and
   * length-prefixed so that no two keys share a string.
   */
  public String routingKey() {
    StringBuilder key = new StringBuilder();
    for (Object value : values) {
      String text = value.toString();
      key.append(value instanceof Long ? 'i' : value instanceof Integer ? 'd' : 's')
          .append(text.length())
          .append(':')
          .append(text);
    }
    return key.toString();
  }

  @Override
  @SuppressWarnings("unchecked")
  public int compareTo(RowKey other) {
    for (int i = 0; i < values.length; i++) {
      int order = ((Comparable<Object>) values[i]).compareTo(other.values[i]);
      if (order != 0) {
        return order;
      }
    }
    return 0;
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof RowKey key && Arrays.equals(values, key.values);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(values);
  }

  /** {@code (42, 'abc')}: for messages. */
  @Override
  public String toString() {
    StringJoiner joined = new StringJoiner(", ", "(", ")");
    for (Object value : values) {
      joined.add(value instanceof String ? "'" + value + "'" : String.valueOf(value));
    }
    return joined.toString();
  }
}
