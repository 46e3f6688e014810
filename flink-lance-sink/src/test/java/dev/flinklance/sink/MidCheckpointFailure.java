package dev.flinklance.sink;

import dev.flinklance.testing.Failures;
import java.io.IOException;
import java.util.Collection;
import org.apache.flink.api.connector.sink2.CommittingSinkWriter;

/**
 * A sink writer that fails once in the middle of a checkpoint interval: after it prepared
 * checkpoint {@code checkpoint}'s results and took {@code records} more records, while it holds
 * rows not yet written. For the failing sinks of the tests.
 */
public final class MidCheckpointFailure<T, R> implements CommittingSinkWriter<T, R> {
  private final CommittingSinkWriter<T, R> delegate;
  private final boolean target;
  private final String token;
  private final int checkpoint;
  private final int records;
  private int prepared;
  private int sincePrepared;

  /**
   * @param target whether this writer subtask is the one that fails
   */
  public MidCheckpointFailure(
      CommittingSinkWriter<T, R> delegate,
      boolean target,
      String token,
      int checkpoint,
      int records) {
    this.delegate = delegate;
    this.target = target;
    this.token = token;
    this.checkpoint = checkpoint;
    this.records = records;
  }

  @Override
  public void write(T element, Context context) throws IOException, InterruptedException {
    delegate.write(element, context);
    if (target
        && prepared >= checkpoint
        && ++sincePrepared >= records
        && Failures.fireOnce(token)) {
      throw new IOException("Injected writer failure in the middle of a checkpoint interval");
    }
  }

  @Override
  public Collection<R> prepareCommit() throws IOException, InterruptedException {
    prepared++;
    sincePrepared = 0;
    return delegate.prepareCommit();
  }

  @Override
  public void flush(boolean endOfInput) throws IOException, InterruptedException {
    delegate.flush(endOfInput);
  }

  @Override
  public void close() throws Exception {
    delegate.close();
  }
}
