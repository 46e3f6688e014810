package dev.flinklance.sink;

import dev.flinklance.sink.committer.LanceCommittable;
import dev.flinklance.testing.Failures;
import java.io.IOException;
import java.util.Collection;
import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.api.connector.sink2.CommitterInitContext;

/**
 * A {@link LanceSink} whose committer fails once, either just before or just after the Lance commit
 * of the first checkpoint at or after {@code checkpoint}; the job then restarts.
 */
public final class CommitFailingSink<T> extends LanceSink<T> {
  private static final long serialVersionUID = 1L;

  public enum When {
    BEFORE_COMMIT,
    AFTER_COMMIT_BEFORE_ACK
  }

  private final String token;
  private final long checkpoint;
  private final When when;

  public CommitFailingSink(LanceSink<T> sink, String token, long checkpoint, When when) {
    super(sink.config(), sink.rowType(), sink.toRowData());
    this.token = token;
    this.checkpoint = checkpoint;
    this.when = when;
  }

  @Override
  public Committer<LanceCommittable> createCommitter(CommitterInitContext context) {
    Committer<LanceCommittable> delegate = super.createCommitter(context);
    return new Committer<>() {
      @Override
      public void commit(Collection<CommitRequest<LanceCommittable>> requests)
          throws IOException, InterruptedException {
        boolean target =
            requests.stream().anyMatch(r -> r.getCommittable().checkpointId() >= checkpoint);
        if (target && when == When.BEFORE_COMMIT && Failures.fireOnce(token)) {
          throw new IOException("Injected failure before the Lance commit");
        }
        delegate.commit(requests);
        if (target && when == When.AFTER_COMMIT_BEFORE_ACK && Failures.fireOnce(token)) {
          throw new IOException("Injected failure after the Lance commit, before its ack");
        }
      }

      @Override
      public void close() throws Exception {
        delegate.close();
      }
    };
  }
}
