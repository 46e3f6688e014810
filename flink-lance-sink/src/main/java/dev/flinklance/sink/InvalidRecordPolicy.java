package dev.flinklance.sink;

import org.apache.flink.annotation.PublicEvolving;

/** What the sink does with a record it cannot write (option {@code sink.on-invalid-record}). */
@PublicEvolving
public enum InvalidRecordPolicy {
  /** Fail the job at once, without restarts, naming the column, record number and record. */
  FAIL,
  /**
   * Leave the record out, count it in the writer's {@code numRecordsSendErrors} metric and log it
   * (rate-limited) with its column and record number.
   */
  SKIP
}
