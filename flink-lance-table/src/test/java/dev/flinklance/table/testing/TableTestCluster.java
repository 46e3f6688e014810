package dev.flinklance.table.testing;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.MiniClusterExtension;

/** One shared MiniCluster shape for the module's integration tests. */
public final class TableTestCluster {
  public static final int SLOTS = 4;

  private TableTestCluster() {}

  public static MiniClusterExtension create() {
    Configuration config = new Configuration();
    config.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
    return new MiniClusterExtension(
        new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1)
            .setNumberSlotsPerTaskManager(SLOTS)
            .setConfiguration(config)
            .build());
  }
}
