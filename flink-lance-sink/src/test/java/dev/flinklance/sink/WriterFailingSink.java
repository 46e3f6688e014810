package dev.flinklance.sink;

import dev.flinklance.sink.writer.LanceWriteResult;
import dev.flinklance.testing.Failures;
import java.io.IOException;
import java.util.Collection;
import org.apache.flink.api.connector.sink2.CommittingSinkWriter;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;

/**
 * A {@link LanceSink} whose writer subtask 0 fails once in the middle of a checkpoint interval:
 * after it prepared checkpoint {@code checkpoint}'s results and took {@code records} more records,
 * while it holds changes not yet written. The job then restarts.
 */
public final class WriterFailingSink<T> extends LanceSink<T> {
  private static final long serialVersionUID = 1L;

  private final String token;
  private final int checkpoint;
  private final int records;

  public WriterFailingSink(LanceSink<T> sink, String token, int checkpoint, int records) {
    super(sink.config(), sink.rowType(), sink.toRowData());
    this.token = token;
    this.checkpoint = checkpoint;
    this.records = records;
  }

  @Override
  @SuppressWarnings("unchecked")
  public SinkWriter<T> createWriter(WriterInitContext context) {
    CommittingSinkWriter<T, LanceWriteResult> delegate =
        (CommittingSinkWriter<T, LanceWriteResult>) super.createWriter(context);
    boolean target = context.getTaskInfo().getIndexOfThisSubtask() == 0;
    return new CommittingSinkWriter<T, LanceWriteResult>() {
      int prepared;
      int sincePrepared;

      @Override
      public void write(T element, Context writeContext) throws IOException, InterruptedException {
        delegate.write(element, writeContext);
        if (target
            && prepared >= checkpoint
            && ++sincePrepared >= records
            && Failures.fireOnce(token)) {
          throw new IOException("Injected writer failure in the middle of a checkpoint interval");
        }
      }

      @Override
      public Collection<LanceWriteResult> prepareCommit() throws IOException, InterruptedException {
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
    };
  }
}
