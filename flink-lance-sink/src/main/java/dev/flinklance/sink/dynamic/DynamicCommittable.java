package dev.flinklance.sink.dynamic;

import dev.flinklance.sink.committer.LanceCommittable;
import org.apache.flink.annotation.Internal;
import org.apache.flink.table.types.logical.RowType;

/**
 * One checkpoint's changes of one table, across all writer subtasks: committed as ONE stamped Lance
 * transaction, numbered in the sink run per table.
 *
 * @param keyType the table's primary key columns, null for a table the sink appends to
 */
@Internal
public record DynamicCommittable(TableName table, RowType keyType, LanceCommittable committable) {

  @Override
  public String toString() {
    return table + ": " + committable;
  }
}
