package dev.flinklance.sink.dynamic;

import dev.flinklance.sink.MidCheckpointFailure;
import dev.flinklance.testing.Failures;
import java.io.IOException;
import java.util.Collection;
import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.api.connector.sink2.CommitterInitContext;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;

/**
 * A {@link DynamicLanceSink} that fails once: its committer just before or just after the Lance
 * commits of the first checkpoint at or after {@code checkpoint}, or its writer subtask 0 twenty
 * records after it prepared that checkpoint, while it holds rows of many tables.
 */
final class FailingDynamicSink extends DynamicLanceSink {
  private static final long serialVersionUID = 1L;

  enum When {
    NONE,
    BEFORE_COMMIT,
    AFTER_COMMIT_BEFORE_ACK,
    WRITER_MID_CHECKPOINT
  }

  private final String token;
  private final long checkpoint;
  private final When when;

  FailingDynamicSink(DynamicLanceSink sink, String token, long checkpoint, When when) {
    super(sink.config());
    this.token = token;
    this.checkpoint = checkpoint;
    this.when = when;
  }

  @Override
  public Committer<DynamicCommittable> createCommitter(CommitterInitContext context) {
    Committer<DynamicCommittable> delegate = super.createCommitter(context);
    return new Committer<>() {
      @Override
      public void commit(Collection<CommitRequest<DynamicCommittable>> requests)
          throws IOException, InterruptedException {
        boolean target =
            requests.stream()
                .anyMatch(r -> r.getCommittable().committable().checkpointId() >= checkpoint);
        if (target && when == When.BEFORE_COMMIT && Failures.fireOnce(token)) {
          throw new IOException("Injected failure before the Lance commits");
        }
        delegate.commit(requests);
        if (target && when == When.AFTER_COMMIT_BEFORE_ACK && Failures.fireOnce(token)) {
          throw new IOException("Injected failure after the Lance commits, before their ack");
        }
      }

      @Override
      public void close() throws Exception {
        delegate.close();
      }
    };
  }

  @Override
  public SinkWriter<DynamicRecord> createWriter(WriterInitContext context) {
    DynamicSinkWriter delegate = (DynamicSinkWriter) super.createWriter(context);
    return new MidCheckpointFailure<>(
        delegate,
        when == When.WRITER_MID_CHECKPOINT && context.getTaskInfo().getIndexOfThisSubtask() == 0,
        token,
        (int) checkpoint,
        20);
  }
}
