package dev.flinklance.sink.writer;

import java.util.function.LongSupplier;
import org.apache.flink.annotation.Internal;

/**
 * The first failure of a writer's {@code write}, kept so that every later call of the writer fails
 * too. A writer chained to the operators before it runs inside their calls, and one that catches
 * what it calls throws (Flink 2.2's JSON format with {@code 'json.ignore-parse-errors'}, which
 * calls the operators after it inside its parse-error handler) swallows the failure: the record is
 * gone and the job goes on. The next write, flush or checkpoint of the writer then fails, so no
 * checkpoint completes without the record. The failure's kind is kept (it is the cause): a bad
 * record still fails the job without restarts, an I/O error restarts it from the last checkpoint.
 */
@Internal
public final class WriteFailure {
  /** A write of the writer; its failure is remembered. */
  public interface Write {
    void run() throws InterruptedException;
  }

  private final String sink;
  private final String subtask;
  private final LongSupplier recordsSeen;
  private Throwable failure;
  private long record;

  WriteFailure(RecordErrors errors) {
    this("Lance sink for '" + errors.table() + "'", errors.subtask(), errors::recordsSeen);
  }

  /**
   * @param sink how messages name the sink, e.g. "Lance sink for 's3://b/t'"
   * @param subtask how messages name the writer subtask
   * @param recordsSeen the number of the record being written
   */
  public WriteFailure(String sink, String subtask, LongSupplier recordsSeen) {
    this.sink = sink;
    this.subtask = subtask;
    this.recordsSeen = recordsSeen;
  }

  /**
   * Runs {@code write} unless an earlier write failed.
   *
   * @throws IllegalStateException if an earlier write failed
   */
  public void guard(Write write) throws InterruptedException {
    check();
    try {
      write.run();
    } catch (RuntimeException | Error | InterruptedException e) {
      failure = e;
      record = recordsSeen.getAsLong();
      throw e;
    }
  }

  /**
   * @throws IllegalStateException naming the failed record and carrying the failure's message, if a
   *     write failed
   */
  public void check() {
    if (failure != null) {
      throw new IllegalStateException(
          String.format(
              "%s: record #%d of %s failed, yet the job went on: an operator"
                  + " before the sink caught the failure (as Flink's JSON format does with"
                  + " 'json.ignore-parse-errors'), and the record would be missing. Nothing since"
                  + " the last checkpoint is committed. The failure: %s",
              sink, record, subtask, failure),
          failure);
    }
  }
}
