package dev.flinklance.compactor.it;

import dev.flinklance.testing.TestClusters;
import java.time.Duration;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.test.junit5.MiniClusterExtension;

/** One shared MiniCluster shape for the compactor's integration tests. */
final class CompactionTestCluster {
  static final int SLOTS = 4;

  private CompactionTestCluster() {}

  static MiniClusterExtension create() {
    return create(SLOTS);
  }

  static MiniClusterExtension create(int slots) {
    return TestClusters.create(slots, new Configuration());
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
