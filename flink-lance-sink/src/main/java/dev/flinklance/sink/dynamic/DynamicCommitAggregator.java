package dev.flinklance.sink.dynamic;

import dev.flinklance.access.VersionMark;
import dev.flinklance.commit.CommitStamp;
import dev.flinklance.sink.aggregator.CommitUser;
import dev.flinklance.sink.committer.LanceCommittable;
import dev.flinklance.sink.compat.Committables;
import dev.flinklance.sink.writer.LanceWriteResult;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
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
import org.apache.flink.table.types.logical.RowType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The dynamic sink's aggregator (parallelism 1): folds all writers' results of a checkpoint into
 * ONE committable per table, numbered within the sink run per table, so that each table's
 * checkpoint becomes one stamped Lance transaction and a replay is recognised in each table's own
 * history. A table's run starts at the version it has when its first committable of the run is
 * emitted: no commit of the run can be in the table before.
 */
@Internal
public final class DynamicCommitAggregator
    extends AbstractStreamOperator<CommittableMessage<DynamicCommittable>>
    implements OneInputStreamOperator<
            CommittableMessage<TableWriteResult>, CommittableMessage<DynamicCommittable>>,
        BoundedOneInput {
  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(DynamicCommitAggregator.class);

  private final DynamicSinkConfig config;
  private transient TreeMap<Long, Map<TableName, TableWrites>> pending;
  private transient Map<TableName, TableRun> runs;
  private transient String commitUser;
  private transient String run;

  /** A table's part of the sink run: where it started, and its last commit's number. */
  private static final class TableRun {
    final VersionMark start;
    long seq;

    TableRun(VersionMark start) {
      this.start = start;
    }
  }

  DynamicCommitAggregator(DynamicSinkConfig config) {
    this.config = config;
  }

  @Override
  public void initializeState(StateInitializationContext context) throws Exception {
    super.initializeState(context);
    pending = new TreeMap<>();
    runs = new HashMap<>();
    commitUser = CommitUser.restore(context, config.commitUser());
    run = UUID.randomUUID().toString();
    LOG.info(
        "Dynamic sink run {} of commit user '{}' into {} starts",
        run,
        commitUser,
        config.warehouse());
  }

  @Override
  public void processElement(StreamRecord<CommittableMessage<TableWriteResult>> element) {
    CommittableMessage<TableWriteResult> message = element.getValue();
    if (message instanceof CommittableWithLineage<TableWriteResult> withLineage) {
      TableWriteResult result = withLineage.getCommittable();
      pending
          .computeIfAbsent(Committables.checkpointId(message), id -> new LinkedHashMap<>())
          .computeIfAbsent(result.table(), t -> new TableWrites(result.keyType()))
          .add(result.result());
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

  /** As the single-table aggregator: later checkpoints' results wait (unaligned AT_LEAST_ONCE). */
  private void emitUpTo(long checkpointId) {
    Map<Long, Map<TableName, TableWrites>> ready = pending.headMap(checkpointId, true);
    ready.forEach(this::emit);
    ready.clear();
  }

  private void emit(long checkpointId, Map<TableName, TableWrites> tables) {
    String jobId = getRuntimeContext().getJobInfo().getJobId().toString();
    List<DynamicCommittable> committables = new ArrayList<>();
    tables.forEach(
        (table, writes) -> {
          LanceWriteResult all = LanceWriteResults.merge(writes.results);
          if (all.fragments().isEmpty() && all.removedKeys().isEmpty()) {
            return; // nothing to commit (an Append without fragments fails)
          }
          TableRun tableRun =
              runs.computeIfAbsent(
                  table,
                  t ->
                      new TableRun(
                          CommitUser.latestMark(
                              config.warehouse().table(t.database(), t.table()))));
          CommitStamp stamp = new CommitStamp(commitUser, run, ++tableRun.seq, checkpointId, jobId);
          committables.add(
              new DynamicCommittable(
                  table,
                  writes.keyType,
                  new LanceCommittable(
                      stamp, tableRun.start, false, all.fragments(), all.removedKeys())));
        });
    if (committables.isEmpty()) {
      return;
    }
    output.collect(
        new StreamRecord<>(
            Committables.<DynamicCommittable>summary(0, 1, checkpointId, committables.size())));
    for (DynamicCommittable committable : committables) {
      output.collect(
          new StreamRecord<>(new CommittableWithLineage<>(committable, checkpointId, 0)));
    }
  }

  /** All writers' results of one table in one checkpoint. */
  private static final class TableWrites {
    final RowType keyType;
    final List<LanceWriteResult> results = new ArrayList<>();

    TableWrites(RowType keyType) {
      this.keyType = keyType;
    }

    void add(LanceWriteResult result) {
      results.add(result);
    }
  }
}
