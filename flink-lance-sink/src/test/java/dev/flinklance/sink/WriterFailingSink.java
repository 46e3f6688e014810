package dev.flinklance.sink;

import dev.flinklance.sink.writer.LanceWriteResult;
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
    return new MidCheckpointFailure<>(
        delegate, context.getTaskInfo().getIndexOfThisSubtask() == 0, token, checkpoint, records);
  }
}
