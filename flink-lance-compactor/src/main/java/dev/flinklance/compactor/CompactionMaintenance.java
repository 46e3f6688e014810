package dev.flinklance.compactor;

import dev.flinklance.access.TableRef;
import dev.flinklance.access.Warehouse;
import dev.flinklance.compactor.commit.CompactionSummary;
import dev.flinklance.compactor.operator.CompactionTopology;
import dev.flinklance.compactor.operator.RewriteFunction;
import dev.flinklance.compactor.operator.WarehouseCompactor;
import dev.flinklance.compactor.plan.PlanRequest;
import dev.flinklance.maintenance.CommittedCheckpoint;
import dev.flinklance.maintenance.TableCommit;
import dev.flinklance.maintenance.TableMaintenance;
import org.apache.flink.annotation.Internal;
import org.apache.flink.annotation.VisibleForTesting;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;

/**
 * Compaction as the writing job's table maintenance ({@code compaction.enabled}): every committed
 * checkpoint is a {@link PlanRequest#COMMIT} for the {@link CompactionTopology}. Found by the sink
 * through {@link java.util.ServiceLoader}; the sink knows nothing of it.
 */
@Internal
public final class CompactionMaintenance implements TableMaintenance {
  static final String TRIGGER_NAME = "Lance Compaction Trigger";

  /** The trigger's uid: the one it has had since it came in (it keeps no state). */
  static final String TRIGGER_UID = "Lance Compaction Trigger";

  static final String WAREHOUSE_NAME = "Lance Warehouse Compactor";

  /** The warehouse compactor's uid (it keeps no state; fixed all the same, as every uid here). */
  static final String WAREHOUSE_UID = "lance-warehouse-compactor";

  @Override
  public String optionPrefix() {
    return LanceCompactionOptions.PREFIX;
  }

  @Override
  public void validate(ReadableConfig options) {
    CompactionConfig.forTable(Configuration.fromMap(options.toMap()), null);
  }

  @Override
  public boolean isEnabled(ReadableConfig options) {
    return options.get(LanceCompactionOptions.COMPACTION_ENABLED);
  }

  @Override
  public void addTo(
      DataStream<CommittedCheckpoint> commits,
      TableRef table,
      ReadableConfig options,
      boolean uids) {
    CompactionConfig compaction =
        CompactionConfig.forTable(Configuration.fromMap(options.toMap()), table);
    addTo(commits, compaction, new RewriteFunction(table), uids);
  }

  @VisibleForTesting
  public static void addTo(
      DataStream<CommittedCheckpoint> commits,
      CompactionConfig compaction,
      RewriteFunction rewrite,
      boolean uids) {
    SingleOutputStreamOperator<PlanRequest> requests =
        commits
            .map(commit -> PlanRequest.COMMIT)
            .returns(TypeInformation.of(PlanRequest.class))
            .name(TRIGGER_NAME)
            .setParallelism(commits.getParallelism());
    if (uids) {
      requests.uid(TRIGGER_UID);
    }
    CompactionTopology.add(
        requests, compaction, uids ? CompactionTopology.Uids.IN_SINK : null, rewrite);
  }

  /**
   * Compacts each table of the dynamic sink as the single-table sink's compaction would, in one
   * {@link WarehouseCompactor} keyed by table, at {@code compaction.parallelism} (default: the
   * job's).
   */
  @Override
  public void addToWarehouse(
      DataStream<TableCommit> commits, Warehouse warehouse, ReadableConfig options, boolean uids) {
    Configuration conf = Configuration.fromMap(options.toMap());
    CompactionConfig shared = CompactionConfig.forTable(conf, null);
    SingleOutputStreamOperator<CompactionSummary> summaries =
        commits
            .keyBy(TableCommit::key, Types.STRING)
            .transform(
                WAREHOUSE_NAME,
                CompactionSummary.typeInfo(),
                WarehouseCompactor.factory(warehouse, conf));
    shared.parallelism().ifPresent(summaries::setParallelism);
    if (uids) {
      summaries.uid(WAREHOUSE_UID);
    }
  }
}
