package dev.flinklance.sink.dynamic;

import dev.flinklance.maintenance.TableCommit;
import dev.flinklance.sink.committer.CommittedCheckpoints;
import org.apache.flink.api.common.functions.FlatMapFunction;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessage;
import org.apache.flink.streaming.api.connector.sink2.CommittableWithLineage;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.util.Collector;

/**
 * The dynamic sink's committed checkpoints as table maintenance sees them: one {@link TableCommit}
 * per table the committer has committed a checkpoint of.
 */
final class TableCommits
    implements FlatMapFunction<CommittableMessage<DynamicCommittable>, TableCommit> {
  private static final long serialVersionUID = 1L;

  /** The operator's name, and its uid under a sink with one (fixed: savepoints map by it). */
  static final String NAME = "Lance Dynamic Committed Checkpoints";

  static final String UID = "lance-dynamic-committed-checkpoints";

  static SingleOutputStreamOperator<TableCommit> of(
      DataStream<CommittableMessage<DynamicCommittable>> committed, boolean uids) {
    return CommittedCheckpoints.behind(
        committed, new TableCommits(), TableCommit.class, NAME, UID, uids);
  }

  @Override
  public void flatMap(CommittableMessage<DynamicCommittable> message, Collector<TableCommit> out) {
    if (message instanceof CommittableWithLineage<DynamicCommittable> committed) {
      DynamicCommittable committable = committed.getCommittable();
      out.collect(
          new TableCommit(
              committable.table().database(),
              committable.table().table(),
              CommittedCheckpoints.checkpointOf(committable.committable())));
    }
  }
}
