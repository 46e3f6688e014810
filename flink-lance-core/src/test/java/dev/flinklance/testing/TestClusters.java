package dev.flinklance.testing;

import java.time.Duration;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.MiniClusterExtension;

/**
 * The MiniClusters of the modules' integration tests, in one place: one TaskManager with {@link
 * #SLOTS} slots (or as many as a test asks for), and the restart behaviours the tests rely on.
 */
public final class TestClusters {
  /** Slots of the shared cluster shape: enough for a job at parallelism 4 or two smaller ones. */
  public static final int SLOTS = 4;

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
  public static MiniClusterExtension withoutRestarts() {
    return withoutRestarts(SLOTS);
  }

  public static MiniClusterExtension withoutRestarts(int slots) {
    Configuration config = new Configuration();
    config.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
    return create(slots, config);
  }

  /**
   * A cluster with Flink's own restart behaviour: a job without checkpointing fails at its first
   * failure, one with checkpointing restarts with exponential delay until it is cancelled.
   */
  public static MiniClusterExtension withFlinksRestarts() {
    return withFlinksRestarts(SLOTS);
  }

  public static MiniClusterExtension withFlinksRestarts(int slots) {
    return create(slots, new Configuration());
  }

  /** A cluster that reports every metric to {@code reporter}, kept after the job ends. */
  public static MiniClusterExtension withMetrics(InMemoryReporter reporter, int slots) {
    return create(slots, reporter.addToConfiguration(new Configuration()));
  }

  /**
   * A job's configuration that restarts it up to three times, 100 ms apart, from its last
   * checkpoint: for tests that inject failures and expect the job to recover from each.
   */
  public static Configuration threeRestarts() {
    Configuration config = new Configuration();
    config.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
    config.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 3);
    config.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(100));
    return config;
  }
}
