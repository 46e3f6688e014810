package dev.flinklance.testing;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.MiniClusterExtension;

/** The MiniCluster shapes of the modules' integration tests: one TaskManager, some slots. */
public final class TestClusters {
  private TestClusters() {}

  public static MiniClusterExtension create(int slots, Configuration config) {
    return new MiniClusterExtension(
        new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1)
            .setNumberSlotsPerTaskManager(slots)
            .setConfiguration(config)
            .build());
  }

  /** A cluster whose jobs fail at their first failure (a test that injects one says so). */
  public static MiniClusterExtension withoutRestarts(int slots) {
    Configuration config = new Configuration();
    config.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
    return create(slots, config);
  }

  /** A cluster that reports every metric to {@code reporter}, kept after the job ends. */
  public static MiniClusterExtension withMetrics(InMemoryReporter reporter, int slots) {
    return create(slots, reporter.addToConfiguration(new Configuration()));
  }
}
