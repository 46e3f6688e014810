package dev.flinklance.sink.aggregator;

import dev.flinklance.sink.committer.LanceCommittable;
import dev.flinklance.sink.writer.LanceWriteResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessage;
import org.apache.flink.streaming.api.connector.sink2.CommittableSummary;
import org.apache.flink.streaming.api.connector.sink2.CommittableWithLineage;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.lance.FragmentMetadata;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs at parallelism 1 between the writers and the committer and folds all writers' results of a
 * checkpoint into ONE committable, so that each checkpoint becomes one Lance transaction. It also
 * owns the commit user: the configured one, or a UUID created on the first run and kept in operator
 * state so that it survives a restore from a savepoint (which changes the job id).
 *
 * <p>Write results of checkpoint N all arrive before barrier N (the sink's channels never take
 * unaligned checkpoints), so the committable is emitted just before the barrier is forwarded. Every
 * emitted committable is preceded by a summary that announces exactly one committable, as the
 * committer expects.
 */
public final class CommitAggregator
    extends AbstractStreamOperator<CommittableMessage<LanceCommittable>>
    implements OneInputStreamOperator<
            CommittableMessage<LanceWriteResult>, CommittableMessage<LanceCommittable>>,
        BoundedOneInput {
  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(CommitAggregator.class);

  private final String configuredCommitUser;
  private transient TreeMap<Long, List<FragmentMetadata>> pending;
  private transient ListState<String> commitUserState;
  private transient String commitUser;

  public CommitAggregator(String configuredCommitUser) {
    this.configuredCommitUser = configuredCommitUser;
  }

  @Override
  public void initializeState(StateInitializationContext context) throws Exception {
    super.initializeState(context);
    pending = new TreeMap<>();
    commitUserState =
        context
            .getOperatorStateStore()
            .getListState(new ListStateDescriptor<>("lance-commit-user", Types.STRING));
    String restored = null;
    for (String user : commitUserState.get()) {
      restored = user;
    }
    commitUser = chooseCommitUser(restored);
    commitUserState.update(List.of(commitUser));
  }

  private String chooseCommitUser(String restored) {
    if (configuredCommitUser != null) {
      if (restored != null && !restored.equals(configuredCommitUser)) {
        LOG.warn(
            "Commit user changed from '{}' (restored) to '{}' (configured); using the configured"
                + " one. Pending commits keep the user they were created with.",
            restored,
            configuredCommitUser);
      }
      return configuredCommitUser;
    }
    if (restored != null) {
      return restored;
    }
    String created = UUID.randomUUID().toString();
    LOG.info("Created commit user '{}' for this sink; it is kept in Flink state", created);
    return created;
  }

  /**
   * Nothing can be pending here: results of this checkpoint were emitted before the barrier and
   * later ones cannot have arrived yet. Failing loudly beats silently dropping fragments should
   * that ever change (for example if the channels did take unaligned checkpoints).
   */
  @Override
  public void snapshotState(StateSnapshotContext context) throws Exception {
    super.snapshotState(context);
    if (!pending.isEmpty()) {
      throw new IllegalStateException(
          "Lance commit aggregator has write results of checkpoints "
              + pending.keySet()
              + " at checkpoint "
              + context.getCheckpointId());
    }
  }

  @Override
  public void processElement(StreamRecord<CommittableMessage<LanceWriteResult>> element) {
    if (element.getValue() instanceof CommittableWithLineage) {
      CommittableWithLineage<LanceWriteResult> message =
          (CommittableWithLineage<LanceWriteResult>) element.getValue();
      pending
          .computeIfAbsent(message.getCheckpointId(), id -> new ArrayList<>())
          .addAll(message.getCommittable().fragments());
    }
  }

  @Override
  public void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
    super.prepareSnapshotPreBarrier(checkpointId);
    emitUpTo(checkpointId);
  }

  @Override
  public void endInput() {
    emitUpTo(Long.MAX_VALUE);
  }

  private void emitUpTo(long checkpointId) {
    Map<Long, List<FragmentMetadata>> ready = pending.headMap(checkpointId, true);
    String jobId = getRuntimeContext().getJobInfo().getJobId().toString();
    ready.forEach(
        (id, fragments) -> {
          if (fragments.isEmpty()) {
            return;
          }
          LanceCommittable committable = new LanceCommittable(commitUser, id, jobId, fragments);
          output.collect(new StreamRecord<>(new CommittableSummary<>(0, 1, id, 1, 0)));
          output.collect(new StreamRecord<>(new CommittableWithLineage<>(committable, id, 0)));
        });
    ready.clear();
  }
}
