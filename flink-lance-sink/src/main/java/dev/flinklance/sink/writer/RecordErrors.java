package dev.flinklance.sink.writer;

import dev.flinklance.sink.InvalidRecordPolicy;
import dev.flinklance.sink.LanceSinkConfig;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;

/**
 * The records of one writer subtask that cannot be written: each error names the table, the
 * record's number in the subtask and the record's values (bounded, {@link RecordText}); {@code
 * sink.on-invalid-record} says whether it fails the job or is skipped and counted.
 */
@Internal
public final class RecordErrors {
  private final LanceSinkConfig config;
  private final String subtask;
  private final SkippedRecords skipped;
  private final RecordText recordText;
  private long recordsSeen;

  /**
   * @param rowType the records' type, to show their values
   */
  RecordErrors(LanceSinkConfig config, RowType rowType, WriterInitContext context) {
    this.config = config;
    this.recordText = new RecordText(rowType);
    this.subtask = subtaskOf(context);
    this.skipped = new SkippedRecords(context.metricGroup().getNumRecordsSendErrorsCounter());
  }

  /** "subtask 2 of 4": how messages and thread names name a writer subtask. */
  public static String subtaskOf(WriterInitContext context) {
    return String.format(
        "subtask %d of %d",
        context.getTaskInfo().getIndexOfThisSubtask(),
        context.getTaskInfo().getNumberOfParallelSubtasks());
  }

  String subtask() {
    return subtask;
  }

  /** The table, as messages name it. */
  String table() {
    return config.dataset().toString();
  }

  /** Counts the next record; its number is what errors name. */
  long next() {
    return ++recordsSeen;
  }

  long recordsSeen() {
    return recordsSeen;
  }

  /**
   * The error of the current record. Its message says everything (table, record, column, the
   * record's values), and it is the root of its chain (the failure it reports is suppressed in it,
   * not its cause): users see the root cause, such as the SQL client's "Reason", or a chain whose
   * top an operator before the sink wrote (Flink's JSON format: "Failed to deserialize JSON").
   *
   * @param problem appended right after the record's position
   * @param failure what found the problem, or null
   */
  InvalidRecordException error(String action, RowData row, String problem, Throwable failure) {
    InvalidRecordException error =
        new InvalidRecordException(
            String.format(
                "Lance sink for '%s' %s record #%d of %s%s. Record: %s",
                config.dataset(), action, recordsSeen, subtask, problem, recordText.of(row)),
            null);
    if (failure != null) {
      error.addSuppressed(failure);
    }
    return error;
  }

  /**
   * Skips the record under {@code sink.on-invalid-record = skip}.
   *
   * @throws InvalidRecordException otherwise
   */
  void reject(InvalidRecordException error) {
    if (config.onInvalidRecord() != InvalidRecordPolicy.SKIP) {
      throw error;
    }
    skipped.skip(error.getMessage());
  }
}
