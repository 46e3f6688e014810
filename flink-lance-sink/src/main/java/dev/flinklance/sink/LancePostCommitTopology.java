package dev.flinklance.sink;

import dev.flinklance.sink.committer.LanceCommittable;
import org.apache.flink.annotation.Internal;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessage;
import org.apache.flink.streaming.api.datastream.DataStream;

/**
 * Work that runs after the sink's commits, inside the sink's job (Flink's post-commit topology).
 * Implementations are found with {@link java.util.ServiceLoader}, so that a module that builds on
 * the sink (the compactor) can hook into it without the sink depending on that module. Each one
 * decides from the sink's options whether it is switched on.
 */
@Internal
public interface LancePostCommitTopology {

  /** The option-key prefix this topology owns, e.g. {@code "compaction."}. */
  String optionPrefix();

  /**
   * Validates the options under {@link #optionPrefix()} when the sink is built.
   *
   * @throws IllegalArgumentException naming the invalid option
   */
  void validate(ReadableConfig options);

  /** Whether the options switch this topology on. */
  boolean isEnabled(ReadableConfig options);

  /**
   * Adds the topology behind the committer.
   *
   * @param committed the committables once Lance has committed them
   */
  void addTo(DataStream<CommittableMessage<LanceCommittable>> committed, LanceSinkConfig config);
}
