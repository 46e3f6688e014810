package dev.flinklance.sink.writer;

import dev.flinklance.sink.InvalidRecordPolicy;
import dev.flinklance.sink.LanceSinkConfig;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.table.data.RowData;

/**
 * The records of one writer subtask that cannot be written: each error names the table, the
 * record's number in the subtask and the record (abbreviated); {@code sink.on-invalid-record} says
 * whether it fails the job or is skipped and counted.
 */
final class RecordErrors {
  private static final int MAX_RECORD_TEXT = 200;

  private final LanceSinkConfig config;
  private final String subtask;
  private final SkippedRecords skipped;
  private long recordsSeen;

  RecordErrors(LanceSinkConfig config, WriterInitContext context) {
    this.config = config;
    this.subtask = subtaskOf(context);
    this.skipped = new SkippedRecords(context.metricGroup().getNumRecordsSendErrorsCounter());
  }

  /** "subtask 2 of 4": how messages and thread names name a writer subtask. */
  static String subtaskOf(WriterInitContext context) {
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
   * @param problem appended right after the record's position
   */
  InvalidRecordException error(String action, RowData row, String problem, Throwable cause) {
    return error(action, recordsSeen, row, problem, cause);
  }

  /** As {@link #error(String, RowData, String, Throwable)}, for an earlier record. */
  InvalidRecordException error(
      String action, long record, RowData row, String problem, Throwable cause) {
    String text = String.valueOf(row);
    if (text.length() > MAX_RECORD_TEXT) {
      text = text.substring(0, MAX_RECORD_TEXT) + "...";
    }
    return new InvalidRecordException(
        String.format(
            "Lance sink for '%s' %s record #%d of %s%s. Record: %s",
            config.dataset(), action, record, subtask, problem, text),
        cause);
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
