package dev.flinklance.sink.it;

import dev.flinklance.testing.TestClusters;
import org.apache.flink.test.junit5.MiniClusterExtension;

/** One shared MiniCluster shape for the sink's integration tests. */
final class SinkTestCluster {
  static final int SLOTS = 4;

  private SinkTestCluster() {}

  static MiniClusterExtension create() {
    return TestClusters.withoutRestarts(SLOTS);
  }
}
