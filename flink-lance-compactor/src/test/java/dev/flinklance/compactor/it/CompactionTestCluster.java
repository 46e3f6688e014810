package dev.flinklance.compactor.it;

import java.time.Duration;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.MiniClusterExtension;

/** One shared MiniCluster shape for the compactor's integration tests. */
final class CompactionTestCluster {
  static final int SLOTS = 4;

  private CompactionTestCluster() {}

  static MiniClusterExtension create() {
    return create(SLOTS);
  }

  static MiniClusterExtension create(int slots) {
    return new MiniClusterExtension(
        new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1)
            .setNumberSlotsPerTaskManager(slots)
            .setConfiguration(new Configuration())
            .build());
  }

  /** Restarts a failed job up to three times, from its last checkpoint. */
  static Configuration restarting() {
    Configuration config = new Configuration();
    config.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
    config.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 3);
    config.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(100));
    return config;
  }
}
