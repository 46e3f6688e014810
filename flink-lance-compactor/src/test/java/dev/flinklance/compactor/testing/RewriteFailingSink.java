package dev.flinklance.compactor.testing;

import dev.flinklance.compactor.CompactionConfig;
import dev.flinklance.compactor.CompactionMaintenance;
import dev.flinklance.compactor.operator.RewriteFunction;
import dev.flinklance.compactor.plan.RewriteTask;
import dev.flinklance.compactor.rewrite.RewriteOutcome;
import dev.flinklance.sink.LanceSink;
import dev.flinklance.sink.committer.CommittedCheckpoints;
import dev.flinklance.sink.committer.LanceCommittable;
import dev.flinklance.sink.compat.WriterInitSink;
import dev.flinklance.sink.writer.LanceWriteResult;
import dev.flinklance.testing.Failures;
import java.io.IOException;
import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.api.connector.sink2.CommitterInitContext;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.SupportsCommitter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessage;
import org.apache.flink.streaming.api.connector.sink2.SupportsPostCommitTopology;
import org.apache.flink.streaming.api.connector.sink2.SupportsPreCommitTopology;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.functions.async.ResultFuture;
import org.lance.Dataset;
import org.lance.compaction.CompactionTask;
import org.lance.compaction.RewriteResult;

/**
 * A {@link LanceSink} with compaction whose rewrite workers fail: once by crashing their task (the
 * job restarts from its last checkpoint, rewrites in flight run again), and once by a rewrite that
 * throws (that rewrite is dropped, the job carries on).
 */
public final class RewriteFailingSink<T>
    implements WriterInitSink<T>,
        SupportsCommitter<LanceCommittable>,
        SupportsPreCommitTopology<LanceWriteResult, LanceCommittable>,
        SupportsPostCommitTopology<LanceCommittable> {
  private static final long serialVersionUID = 1L;

  private final LanceSink<T> sink;
  private final CompactionConfig compaction;
  private final String crashToken;
  private final String failToken;

  public RewriteFailingSink(
      LanceSink<T> sink, CompactionConfig compaction, String crashToken, String failToken) {
    this.sink = sink;
    this.compaction = compaction;
    this.crashToken = crashToken;
    this.failToken = failToken;
  }

  @Override
  public SinkWriter<T> createWriter(WriterInitContext context) throws IOException {
    return sink.createWriter(context);
  }

  @Override
  public Committer<LanceCommittable> createCommitter(CommitterInitContext context)
      throws IOException {
    return sink.createCommitter(context);
  }

  @Override
  public SimpleVersionedSerializer<LanceCommittable> getCommittableSerializer() {
    return sink.getCommittableSerializer();
  }

  @Override
  public DataStream<CommittableMessage<LanceCommittable>> addPreCommitTopology(
      DataStream<CommittableMessage<LanceWriteResult>> writeResults) {
    return sink.addPreCommitTopology(writeResults);
  }

  @Override
  public SimpleVersionedSerializer<LanceWriteResult> getWriteResultSerializer() {
    return sink.getWriteResultSerializer();
  }

  @Override
  public void addPostCommitTopology(DataStream<CommittableMessage<LanceCommittable>> committed) {
    String committerUid = committed.getTransformation().getUid();
    boolean uids = committerUid != null && !committerUid.isEmpty();
    CompactionMaintenance.addTo(
        CommittedCheckpoints.of(committed, uids),
        compaction,
        new FailingRewrite(compaction, crashToken, failToken),
        uids);
  }

  /** Crashes on the first task it is given, fails the rewrite of a later one. */
  private static final class FailingRewrite extends RewriteFunction {
    private static final long serialVersionUID = 1L;
    private final String crashToken;
    private final String failToken;

    FailingRewrite(CompactionConfig config, String crashToken, String failToken) {
      super(config.dataset());
      this.crashToken = crashToken;
      this.failToken = failToken;
    }

    @Override
    public void asyncInvoke(RewriteTask task, ResultFuture<RewriteOutcome> future)
        throws Exception {
      if (!task.isEmptyPlan() && Failures.fireOnce(crashToken)) {
        throw new IllegalStateException("Injected crash of a rewrite worker");
      }
      super.asyncInvoke(task, future);
    }

    @Override
    protected RewriteResult execute(CompactionTask task, Dataset dataset) {
      if (Failures.fired(crashToken) && Failures.fireOnce(failToken)) {
        throw new IllegalStateException("Injected rewrite failure");
      }
      return super.execute(task, dataset);
    }
  }
}
