package dev.flinklance.sink.committer;

import dev.flinklance.maintenance.CommittedCheckpoint;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.functions.FlatMapFunction;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessage;
import org.apache.flink.streaming.api.connector.sink2.CommittableWithLineage;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.util.Collector;

/**
 * The sink's committed checkpoints as table maintenance sees them: one {@link CommittedCheckpoint}
 * per committable the committer has committed; summaries carry no news.
 */
@Internal
public final class CommittedCheckpoints
    implements FlatMapFunction<CommittableMessage<LanceCommittable>, CommittedCheckpoint> {
  private static final long serialVersionUID = 1L;

  /** The operator's name, and its uid under a sink with one (fixed: savepoints map by it). */
  public static final String NAME = "Lance Committed Checkpoints";

  public static final String UID = "lance-committed-checkpoints";

  /**
   * @param uids whether to give the operator its uid (a sink with a uid must: Flink rejects
   *     sub-operators without one, and prefixes theirs with the sink's)
   */
  public static SingleOutputStreamOperator<CommittedCheckpoint> of(
      DataStream<CommittableMessage<LanceCommittable>> committed, boolean uids) {
    SingleOutputStreamOperator<CommittedCheckpoint> commits =
        committed
            .flatMap(new CommittedCheckpoints())
            .returns(TypeInformation.of(CommittedCheckpoint.class))
            .name(NAME)
            .setParallelism(committed.getParallelism());
    if (uids) {
      commits.uid(UID);
    }
    return commits;
  }

  @Override
  public void flatMap(
      CommittableMessage<LanceCommittable> message, Collector<CommittedCheckpoint> out) {
    if (message instanceof CommittableWithLineage<LanceCommittable> committed) {
      LanceCommittable committable = committed.getCommittable();
      out.collect(
          new CommittedCheckpoint(
              committable.checkpointId(), committable.stamp().run(), committable.stamp().runSeq()));
    }
  }
}
