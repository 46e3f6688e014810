package dev.flinklance.sink.dynamic;

import dev.flinklance.maintenance.TableCommit;
import dev.flinklance.maintenance.TableMaintenance;
import dev.flinklance.maintenance.TableMaintenances;
import dev.flinklance.sink.LanceSink;
import dev.flinklance.sink.compat.WriterInitSink;
import java.util.List;
import org.apache.flink.annotation.Internal;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.api.connector.sink2.CommitterInitContext;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.SupportsCommitter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessage;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessageTypeInfo;
import org.apache.flink.streaming.api.connector.sink2.SupportsPostCommitTopology;
import org.apache.flink.streaming.api.connector.sink2.SupportsPreCommitTopology;
import org.apache.flink.streaming.api.connector.sink2.SupportsPreWriteTopology;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;

/**
 * Exactly-once Flink sink for any number of Lance tables from one stream: each {@link
 * DynamicRecord} names its table, and carries its schema and key.
 *
 * <pre>{@code
 * DynamicLanceSink sink = DynamicLanceSink.builder()
 *     .warehouse("s3://bucket/warehouse")
 *     .build();
 * records.sinkTo(sink); // DataStream<DynamicRecord>
 * }</pre>
 *
 * It creates a table at its first record, adds the columns later records bring, and commits each
 * table's changes of a checkpoint as ONE stamped Lance transaction (an Append, or an Update for a
 * table with a primary key), recognised when replayed after a failure, as the single-table {@code
 * LanceSink} does. See {@code docs/dynamic-sink.md}.
 */
@PublicEvolving
public class DynamicLanceSink
    implements WriterInitSink<DynamicRecord>,
        SupportsCommitter<DynamicCommittable>,
        SupportsPreWriteTopology<DynamicRecord>,
        SupportsPreCommitTopology<TableWriteResult, DynamicCommittable>,
        SupportsPostCommitTopology<DynamicCommittable> {
  private static final long serialVersionUID = 1L;

  /** Name and uid (under a sink with a uid) of the aggregation operator: savepoints map by it. */
  static final String AGGREGATOR_NAME = "Lance Dynamic Commit Aggregator";

  private final DynamicSinkConfig config;

  /** Set when Flink adds the pre-commit topology, which comes before the post-commit one. */
  private transient boolean hasUid;

  DynamicLanceSink(DynamicSinkConfig config) {
    this.config = config;
  }

  DynamicSinkConfig config() {
    return config;
  }

  public static DynamicLanceSinkBuilder builder() {
    return new DynamicLanceSinkBuilder();
  }

  @Internal
  @Override
  public SinkWriter<DynamicRecord> createWriter(WriterInitContext context) {
    return new DynamicSinkWriter(config, context);
  }

  @Internal
  @Override
  public DataStream<DynamicRecord> addPreWriteTopology(DataStream<DynamicRecord> input) {
    return input.partitionCustom(
        new DynamicRouting.ToWriter(config.writersPerTable()), new DynamicRouting());
  }

  @Internal
  @Override
  public Committer<DynamicCommittable> createCommitter(CommitterInitContext context) {
    return new DynamicCommitter(config, context);
  }

  @Internal
  @Override
  public SimpleVersionedSerializer<DynamicCommittable> getCommittableSerializer() {
    return new DynamicCommittableSerializer();
  }

  @Internal
  @Override
  public SimpleVersionedSerializer<TableWriteResult> getWriteResultSerializer() {
    return new TableWriteResultSerializer();
  }

  /** All write results go to one aggregator subtask, its committables to one committer subtask. */
  @Internal
  @Override
  public DataStream<CommittableMessage<DynamicCommittable>> addPreCommitTopology(
      DataStream<CommittableMessage<TableWriteResult>> writeResults) {
    SingleOutputStreamOperator<CommittableMessage<DynamicCommittable>> aggregated =
        writeResults
            .global()
            .transform(
                AGGREGATOR_NAME,
                CommittableMessageTypeInfo.of(DynamicCommittableSerializer::new),
                new DynamicCommitAggregator(config))
            .setParallelism(1)
            .setMaxParallelism(1);
    hasUid = LanceSink.sinkHasUid(writeResults.getTransformation());
    if (hasUid) {
      aggregated.uid(AGGREGATOR_NAME);
    }
    return aggregated.global();
  }

  /**
   * The table maintenance the options switch on (compaction, with flink-lance-compactor on the
   * class path), fed with each table's committed checkpoints; nothing when none is.
   */
  @Internal
  @Override
  public void addPostCommitTopology(DataStream<CommittableMessage<DynamicCommittable>> committed) {
    List<TableMaintenance> enabled = TableMaintenances.enabled(config.options());
    if (enabled.isEmpty()) {
      return;
    }
    boolean uids = hasUid;
    DataStream<TableCommit> commits = TableCommits.of(committed, uids);
    enabled.forEach(
        maintenance ->
            maintenance.addToWarehouse(commits, config.warehouse(), config.options(), uids));
  }
}
