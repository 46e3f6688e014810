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
    return behind(
        committed, new CommittedCheckpoints(), CommittedCheckpoint.class, NAME, UID, uids);
  }

  /**
   * The operator that turns a committer's committed committables into table maintenance's events,
   * at the committer's parallelism.
   *
   * @param uids whether to give the operator {@code uid} (see {@link #of})
   */
  public static <C, E> SingleOutputStreamOperator<E> behind(
      DataStream<CommittableMessage<C>> committed,
      FlatMapFunction<CommittableMessage<C>, E> events,
      Class<E> type,
      String name,
      String uid,
      boolean uids) {
    SingleOutputStreamOperator<E> operator =
        committed
            .flatMap(events)
            .returns(TypeInformation.of(type))
            .name(name)
            .setParallelism(committed.getParallelism());
    if (uids) {
      operator.uid(uid);
    }
    return operator;
  }

  @Override
  public void flatMap(
      CommittableMessage<LanceCommittable> message, Collector<CommittedCheckpoint> out) {
    if (message instanceof CommittableWithLineage<LanceCommittable> committed) {
      out.collect(checkpointOf(committed.getCommittable()));
    }
  }

  /** The news of a committable the committer has committed. */
  public static CommittedCheckpoint checkpointOf(LanceCommittable committable) {
    return new CommittedCheckpoint(
        committable.checkpointId(), committable.stamp().run(), committable.stamp().runSeq());
  }
}
