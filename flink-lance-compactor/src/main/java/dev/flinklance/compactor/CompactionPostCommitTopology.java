package dev.flinklance.compactor;

import dev.flinklance.compactor.plan.PlanRequest;
import dev.flinklance.compactor.rewrite.RewriteFunction;
import dev.flinklance.sink.LancePostCommitTopology;
import dev.flinklance.sink.LanceSinkConfig;
import dev.flinklance.sink.committer.LanceCommittable;
import org.apache.flink.annotation.Internal;
import org.apache.flink.annotation.VisibleForTesting;
import org.apache.flink.api.common.functions.FlatMapFunction;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessage;
import org.apache.flink.streaming.api.connector.sink2.CommittableWithLineage;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.util.Collector;

/**
 * Plugs compaction into the sink's job ({@code compaction.enabled}): every committed checkpoint is
 * a {@link PlanRequest#COMMIT} for the {@link CompactionTopology}. Found by the sink through {@link
 * java.util.ServiceLoader}.
 */
@Internal
public final class CompactionPostCommitTopology implements LancePostCommitTopology {
  static final String TRIGGER_NAME = "Lance Compaction Trigger";

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
      DataStream<CommittableMessage<LanceCommittable>> committed, LanceSinkConfig config) {
    CompactionConfig compaction = CompactionConfig.forTable(config.options(), config.dataset());
    addTo(committed, compaction, new RewriteFunction(compaction.dataset()));
  }

  @VisibleForTesting
  public static void addTo(
      DataStream<CommittableMessage<LanceCommittable>> committed,
      CompactionConfig compaction,
      RewriteFunction rewrite) {
    // Flink prefixes the uids of a sink's sub-operators with the sink's uid, and rejects them
    // under a sink without one.
    String committerUid = committed.getTransformation().getUid();
    String uidPrefix = committerUid == null || committerUid.isEmpty() ? null : "";
    var requests =
        committed
            .flatMap(new CommitsToRequests())
            .returns(TypeInformation.of(PlanRequest.class))
            .name(TRIGGER_NAME)
            .setParallelism(committed.getParallelism());
    if (uidPrefix != null) {
      requests.uid(TRIGGER_NAME);
    }
    CompactionTopology.add(requests, compaction, uidPrefix, rewrite);
  }

  /** Each committed checkpoint's committable becomes one request; summaries carry no news. */
  private static final class CommitsToRequests
      implements FlatMapFunction<CommittableMessage<LanceCommittable>, PlanRequest> {
    private static final long serialVersionUID = 1L;

    @Override
    public void flatMap(CommittableMessage<LanceCommittable> message, Collector<PlanRequest> out) {
      if (message instanceof CommittableWithLineage<?>) {
        out.collect(PlanRequest.COMMIT);
      }
    }
  }
}
