package dev.flinklance.sink;

import dev.flinklance.sink.committer.LanceCommittable;
import java.util.List;
import java.util.ServiceLoader;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessage;
import org.apache.flink.streaming.api.datastream.DataStream;

/** The {@link LancePostCommitTopology} implementations on the classpath. */
final class PostCommitTopologies {
  /** Known prefixes, so that an option of a module missing from the classpath is not ignored. */
  private static final List<String> KNOWN_PREFIXES = List.of("compaction.");

  private PostCommitTopologies() {}

  static List<LancePostCommitTopology> available() {
    return ServiceLoader.load(
            LancePostCommitTopology.class, LancePostCommitTopology.class.getClassLoader())
        .stream()
        .map(ServiceLoader.Provider::get)
        .toList();
  }

  /**
   * @throws IllegalArgumentException for an invalid option, or options of a topology whose module
   *     is not on the classpath
   */
  static void validate(Configuration options) {
    List<LancePostCommitTopology> topologies = available();
    for (String prefix : KNOWN_PREFIXES) {
      boolean used = options.keySet().stream().anyMatch(key -> key.startsWith(prefix));
      boolean provided = topologies.stream().anyMatch(t -> t.optionPrefix().equals(prefix));
      if (used && !provided) {
        throw new IllegalArgumentException(
            String.format(
                "Lance sink options '%s*' need flink-lance-compactor on the classpath (it is in"
                    + " the flink-sql-connector-lance jar)",
                prefix));
      }
    }
    topologies.forEach(topology -> topology.validate(options));
  }

  static void addEnabled(
      DataStream<CommittableMessage<LanceCommittable>> committed, LanceSinkConfig config) {
    Configuration options = config.options();
    for (LancePostCommitTopology topology : available()) {
      if (topology.isEnabled(options)) {
        topology.addTo(committed, config);
      }
    }
  }
}
