package dev.flinklance.compactor;

import dev.flinklance.access.TableRef;
import dev.flinklance.compactor.operator.CompactionTopology;
import dev.flinklance.compactor.operator.RewriteFunction;
import dev.flinklance.compactor.plan.PlanRequest;
import dev.flinklance.maintenance.CommittedCheckpoint;
import dev.flinklance.maintenance.TableMaintenance;
import org.apache.flink.annotation.Internal;
import org.apache.flink.annotation.VisibleForTesting;
import org.apache.flink.api.common.typeinfo.TypeInformation;
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
}
