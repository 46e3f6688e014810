package dev.flinklance.table.testing;

import dev.flinklance.testing.TestClusters;
import org.apache.flink.test.junit5.MiniClusterExtension;

/** One shared MiniCluster shape for the module's integration tests. */
public final class TableTestCluster {
  public static final int SLOTS = 4;

  private TableTestCluster() {}

  public static MiniClusterExtension create() {
    return TestClusters.withoutRestarts(SLOTS);
  }
}
