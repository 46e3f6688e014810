package dev.flinklance.sink.aggregator;

import dev.flinklance.access.TableRef;
import dev.flinklance.access.VersionMark;
import dev.flinklance.commit.CommitStamp;
import dev.flinklance.errors.PermanentDatasetException;
import dev.flinklance.sink.LanceSinkConfig;
import dev.flinklance.sink.committer.LanceCommittable;
import dev.flinklance.sink.compat.Committables;
import dev.flinklance.sink.keys.ChangedKeys;
import dev.flinklance.sink.writer.LanceWriteResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import org.apache.flink.annotation.Internal;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessage;
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
 * owns the commit user ({@link CommitUser}).
 *
 * <p>Write results of checkpoint N all arrive before barrier N (the sink's channels never take
 * unaligned checkpoints), so the committable is emitted just before the barrier is forwarded. Every
 * emitted committable is preceded by a summary that announces exactly one committable, as the
 * committer expects.
 */
@Internal
public final class CommitAggregator
    extends AbstractStreamOperator<CommittableMessage<LanceCommittable>>
    implements OneInputStreamOperator<
            CommittableMessage<LanceWriteResult>, CommittableMessage<LanceCommittable>>,
        BoundedOneInput {
  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(CommitAggregator.class);

  private final String configuredCommitUser;
  private final TableRef table;
  private final boolean overwrite;
  private transient TreeMap<Long, CheckpointWrites> pending;
  private transient String commitUser;
  private transient String run;
  private transient long runSeq;
  private transient VersionMark runStart;

  public CommitAggregator(LanceSinkConfig config) {
    this.configuredCommitUser = config.commitUser();
    this.table = config.dataset();
    this.overwrite = config.overwrite();
  }

  @Override
  public void initializeState(StateInitializationContext context) throws Exception {
    super.initializeState(context);
    pending = new TreeMap<>();
    commitUser = CommitUser.restore(context, configuredCommitUser);
    startRun();
  }

  /**
   * Every start is a new sink run: committables restored by the committer belong to the earlier run
   * and are told apart from this run's by the run id, whatever their checkpoint ids.
   */
  private void startRun() {
    run = UUID.randomUUID().toString();
    runSeq = 0;
    runStart = latestMark();
    LOG.info(
        "Sink run {} of commit user '{}' starts at version {} of {}",
        run,
        commitUser,
        runStart.version(),
        table);
  }

  private VersionMark latestMark() {
    return CommitUser.latestMark(table);
  }

  @Override
  public void processElement(StreamRecord<CommittableMessage<LanceWriteResult>> element) {
    CommittableMessage<LanceWriteResult> message = element.getValue();
    // Summaries too: an overwrite of an empty result must still know its checkpoint.
    CheckpointWrites writes =
        pending.computeIfAbsent(Committables.checkpointId(message), id -> new CheckpointWrites());
    if (message instanceof CommittableWithLineage<LanceWriteResult> withLineage) {
      writes.add(withLineage.getCommittable());
    }
  }

  @Override
  public void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
    super.prepareSnapshotPreBarrier(checkpointId);
    if (overwrite) {
      requireNoRowsBefore(checkpointId);
    } else {
      emitUpTo(checkpointId);
    }
  }

  @Override
  public void endInput() {
    if (overwrite) {
      emitOverwrite();
    } else {
      emitUpTo(Long.MAX_VALUE);
    }
  }

  /**
   * Emits one committable per checkpoint up to {@code checkpointId}. Results of later checkpoints
   * stay: in AT_LEAST_ONCE mode barriers are not aligned, and a fast writer's results of checkpoint
   * N+1 can arrive before another writer's barrier N. They are not kept in state: a restore to
   * checkpoint N replays the records they hold.
   */
  private void emitUpTo(long checkpointId) {
    Map<Long, CheckpointWrites> ready = pending.headMap(checkpointId, true);
    ready.forEach(
        (id, writes) -> {
          if (!writes.isEmpty()) {
            emit(id, writes);
          }
        });
    ready.clear();
  }

  /**
   * An overwrite is ONE commit at the end of the input, even without rows. It replaces every row,
   * so the keys a sink with a primary key removes do not matter to it: only the fragments count.
   */
  private void emitOverwrite() {
    long checkpointId = pending.isEmpty() ? 1 : pending.lastKey();
    CheckpointWrites all = new CheckpointWrites();
    pending.values().forEach(writes -> all.fragments.addAll(writes.fragments));
    pending.clear();
    emit(checkpointId, all);
  }

  private void requireNoRowsBefore(long checkpointId) {
    boolean rows =
        pending.headMap(checkpointId, true).values().stream().anyMatch(w -> !w.isEmpty());
    if (rows) {
      throw new PermanentDatasetException(
          table.uri(),
          String.format(
              "the sink overwrites the table at the end of the input, but checkpoint %d came with"
                  + " rows before it: overwrite needs BATCH execution (execution.runtime-mode:"
                  + " batch)",
              checkpointId),
          null);
    }
  }

  private void emit(long checkpointId, CheckpointWrites writes) {
    if (runStart.version() == 0) {
      // "No table yet" matches any table: once the writers made it, the run's committables name it,
      // so that none is committed to a table recreated at the URI (a restore after a DROP and
      // CREATE). The version it has now is older than any commit of this run.
      runStart = latestMark();
    }
    String jobId = getRuntimeContext().getJobInfo().getJobId().toString();
    CommitStamp stamp = new CommitStamp(commitUser, run, ++runSeq, checkpointId, jobId);
    LanceCommittable committable =
        new LanceCommittable(
            stamp, runStart, overwrite, writes.fragments, ChangedKeys.concat(writes.removedKeys));
    output.collect(
        new StreamRecord<>(Committables.<LanceCommittable>summary(0, 1, checkpointId, 1)));
    output.collect(new StreamRecord<>(new CommittableWithLineage<>(committable, checkpointId, 0)));
  }

  /**
   * All writers' results of one checkpoint. A primary key routes each key to one writer, so the
   * writers' removed keys never overlap.
   */
  private static final class CheckpointWrites {
    final List<FragmentMetadata> fragments = new ArrayList<>();
    final List<ChangedKeys> removedKeys = new ArrayList<>();

    void add(LanceWriteResult result) {
      fragments.addAll(result.fragments());
      if (!result.removedKeys().isEmpty()) {
        removedKeys.add(result.removedKeys());
      }
    }

    /** A checkpoint that only deleted keys has keys and no fragments, and still commits. */
    boolean isEmpty() {
      return fragments.isEmpty() && removedKeys.isEmpty();
    }
  }
}
