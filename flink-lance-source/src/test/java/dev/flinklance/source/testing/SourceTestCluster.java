package dev.flinklance.source.testing;

import dev.flinklance.testing.TestClusters;
import org.apache.flink.test.junit5.MiniClusterExtension;

/** One shared MiniCluster shape for the module's integration tests. */
public final class SourceTestCluster {
  public static final int SLOTS = 4;

  private SourceTestCluster() {}

  public static MiniClusterExtension create() {
    return TestClusters.withoutRestarts(SLOTS);
  }
}
