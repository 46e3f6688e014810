package dev.flinklance.maintenance;

import org.apache.flink.annotation.Internal;

/**
 * What a sink that writes many tables of one warehouse tells table maintenance after each commit:
 * table {@code database.table} got one checkpoint's changes.
 */
@Internal
public record TableCommit(String database, String table, CommittedCheckpoint checkpoint) {

  /** The table's place in its warehouse: distinct tables have distinct keys. */
  public String key() {
    return database + "/" + table;
  }
}
