package dev.flinklance.sink.it;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.MiniClusterExtension;

/** One shared MiniCluster shape for the sink's integration tests. */
final class SinkTestCluster {
  static final int SLOTS = 4;

  private SinkTestCluster() {}

  static MiniClusterExtension create() {
    return new MiniClusterExtension(
        new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1)
            .setNumberSlotsPerTaskManager(SLOTS)
            .setConfiguration(config())
            .build());
  }

  private static Configuration config() {
    Configuration config = new Configuration();
    config.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
    return config;
  }
}
