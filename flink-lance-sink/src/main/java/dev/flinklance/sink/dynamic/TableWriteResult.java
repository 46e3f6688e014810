package dev.flinklance.sink.dynamic;

import dev.flinklance.sink.writer.LanceWriteResult;
import org.apache.flink.annotation.Internal;
import org.apache.flink.table.types.logical.RowType;

/**
 * What one writer subtask wrote to one table since its last checkpoint.
 *
 * @param keyType the table's primary key columns as the records had them, null for appended rows
 */
@Internal
public record TableWriteResult(TableName table, RowType keyType, LanceWriteResult result) {}
