package dev.flinklance.sink;

import dev.flinklance.maintenance.CommittedCheckpoint;
import dev.flinklance.maintenance.TableMaintenance;
import dev.flinklance.maintenance.TableMaintenances;
import dev.flinklance.sink.aggregator.CommitAggregator;
import dev.flinklance.sink.committer.CommittedCheckpoints;
import dev.flinklance.sink.committer.LanceCommittable;
import dev.flinklance.sink.committer.LanceCommittableSerializer;
import dev.flinklance.sink.committer.LanceCommitter;
import dev.flinklance.sink.compat.WriterInitSink;
import dev.flinklance.sink.writer.LanceSinkWriter;
import dev.flinklance.sink.writer.LanceWriteResult;
import dev.flinklance.sink.writer.LanceWriteResultSerializer;
import dev.flinklance.sink.writer.UpsertSinkWriter;
import java.util.List;
import org.apache.flink.annotation.Internal;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.api.connector.sink2.CommitterInitContext;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.SupportsCommitter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.api.dag.Transformation;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessage;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessageTypeInfo;
import org.apache.flink.streaming.api.connector.sink2.SupportsPostCommitTopology;
import org.apache.flink.streaming.api.connector.sink2.SupportsPreCommitTopology;
import org.apache.flink.streaming.api.connector.sink2.SupportsPreWriteTopology;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.transformations.PartitionTransformation;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.util.function.SerializableFunction;

/**
 * Exactly-once Flink sink for Lance tables.
 *
 * <pre>{@code
 * LanceSink<RowData> sink = LanceSink.forRowData(rowType)
 *     .path("file:///tmp/events")
 *     .build();
 * stream.sinkTo(sink);
 * }</pre>
 *
 * Writers write fragment files in parallel; an aggregator folds each checkpoint's files into one
 * committable; the committer commits it as one Lance transaction once the checkpoint completes, and
 * skips it if a replay finds it committed already. A sink with a primary key ({@link
 * LanceSinkBuilder#primaryKey}) routes records by key to the writers and commits each checkpoint's
 * changes as one Lance Update. See {@code docs/semantics.md}.
 */
@PublicEvolving
public class LanceSink<T>
    implements WriterInitSink<T>,
        SupportsCommitter<LanceCommittable>,
        SupportsPreWriteTopology<T>,
        SupportsPreCommitTopology<LanceWriteResult, LanceCommittable>,
        SupportsPostCommitTopology<LanceCommittable> {
  private static final long serialVersionUID = 1L;

  /** Name (and, when the sink has a uid, uid suffix) of the aggregation operator. */
  static final String AGGREGATOR_NAME = "Lance Commit Aggregator";

  /**
   * The aggregator's uid (Flink prefixes it with the sink's): fixed, since the commit user in its
   * state maps by it; apart from its display name, though equal to the name it had.
   */
  static final String AGGREGATOR_UID = "Lance Commit Aggregator";

  /**
   * Whether the sink being expanded has a uid, seen by the pre-commit topology (the writer carries
   * it) for the post-commit topology, which Flink expands next: the committer's uid is set only
   * after the expansion, and every sub-operator under a sink with a uid needs one of its own.
   */
  private transient boolean hasUid;

  private final LanceSinkConfig config;
  private final RowType rowType;
  private final SerializableFunction<T, RowData> toRowData;

  LanceSink(LanceSinkConfig config, RowType rowType, SerializableFunction<T, RowData> toRowData) {
    this.config = config;
    this.rowType = rowType;
    this.toRowData = toRowData;
  }

  /** A builder for a sink of Flink {@link RowData} records of the given type. */
  public static LanceSinkBuilder<RowData> forRowData(RowType rowType) {
    return new LanceSinkBuilder<>(rowType, row -> row);
  }

  /** A builder for a sink of any record type, converted to {@link RowData} per record. */
  public static <T> LanceSinkBuilder<T> forType(
      RowType rowType, SerializableFunction<T, RowData> toRowData) {
    return new LanceSinkBuilder<>(rowType, toRowData);
  }

  @Internal
  public LanceSinkConfig config() {
    return config;
  }

  public RowType rowType() {
    return rowType;
  }

  SerializableFunction<T, RowData> toRowData() {
    return toRowData;
  }

  @Override
  public SinkWriter<T> createWriter(WriterInitContext context) {
    return config.primaryKey().isPresent()
        ? new UpsertSinkWriter<>(config, rowType, toRowData, context)
        : new LanceSinkWriter<>(config, rowType, toRowData, context);
  }

  /**
   * A sink with a primary key sends each key's changes to one writer, in the order each upstream
   * subtask sent them (in {@code BATCH} execution too: see {@link RoutingKey}).
   */
  @Override
  public DataStream<T> addPreWriteTopology(DataStream<T> input) {
    return config
        .primaryKey()
        .map(
            key ->
                input.partitionCustom(new RoutingKey.ToWriter(), new RoutingKey<>(toRowData, key)))
        .orElse(input);
  }

  @Internal
  @Override
  public Committer<LanceCommittable> createCommitter(CommitterInitContext context) {
    return new LanceCommitter(config, context);
  }

  @Internal
  @Override
  public SimpleVersionedSerializer<LanceCommittable> getCommittableSerializer() {
    return new LanceCommittableSerializer();
  }

  @Internal
  @Override
  public SimpleVersionedSerializer<LanceWriteResult> getWriteResultSerializer() {
    return new LanceWriteResultSerializer();
  }

  /**
   * All write results go to one aggregator subtask, and its committables to one committer subtask.
   * The aggregator's uid follows the sink's: Flink names it "{sink uid}: Lance Commit Aggregator",
   * so the commit user in its state maps across job upgrades. A sink without a uid cannot have
   * sub-operator uids (Flink rejects them), so then the aggregator has none either.
   */
  @Internal
  @Override
  public DataStream<CommittableMessage<LanceCommittable>> addPreCommitTopology(
      DataStream<CommittableMessage<LanceWriteResult>> writeResults) {
    SingleOutputStreamOperator<CommittableMessage<LanceCommittable>> aggregated =
        writeResults
            .global()
            .transform(
                AGGREGATOR_NAME,
                CommittableMessageTypeInfo.of(LanceCommittableSerializer::new),
                new CommitAggregator(config))
            .setParallelism(1)
            .setMaxParallelism(1);
    hasUid = sinkHasUid(writeResults.getTransformation());
    if (hasUid) {
      aggregated.uid(AGGREGATOR_UID);
    }
    return aggregated.global();
  }

  /**
   * Whether the sink whose writer results {@code transformation} carries has a uid: the writer
   * carries the sink's uid; Flink hands the pre-commit topology the writer's output behind
   * partitioning steps, which never have one.
   */
  @Internal
  public static boolean sinkHasUid(Transformation<?> transformation) {
    Transformation<?> writer = transformation;
    while (writer instanceof PartitionTransformation<?> partition) {
      writer = partition.getInputs().get(0);
    }
    String uid = writer.getUid();
    return uid != null && !uid.isEmpty();
  }

  /**
   * The table maintenance the options switch on (compaction, with flink-lance-compactor on the
   * class path), fed with the committed checkpoints; nothing when none is.
   */
  @Internal
  @Override
  public void addPostCommitTopology(DataStream<CommittableMessage<LanceCommittable>> committed) {
    List<TableMaintenance> enabled = TableMaintenances.enabled(config.options());
    if (enabled.isEmpty()) {
      return;
    }
    boolean uids = hasUid;
    DataStream<CommittedCheckpoint> commits = CommittedCheckpoints.of(committed, uids);
    enabled.forEach(
        maintenance -> maintenance.addTo(commits, config.dataset(), config.options(), uids));
  }
}
