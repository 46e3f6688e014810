package dev.flinklance.sink.dynamic;

import org.apache.flink.annotation.Internal;

/** A table of the dynamic sink by its database and name: {@code <warehouse>/db/t.lance}. */
@Internal
public record TableName(String database, String table) {

  static TableName of(DynamicRecord record) {
    return new TableName(record.database(), record.table());
  }

  @Override
  public String toString() {
    return database + "." + table;
  }
}
