package dev.flinklance.table.bench;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.streaming.util.TestStreamEnvironment;

/**
 * The MiniCluster a benchmark's SQL jobs run on: one task manager with two slots (jobs at
 * parallelism 1 and 2), the context of every TableEnvironment the benchmark creates meanwhile.
 */
final class BenchCluster {

  /** What runs on the cluster. */
  interface Body {
    void run() throws Exception;
  }

  private BenchCluster() {}

  static void run(Body body) throws Exception {
    run(new Configuration(), body);
  }

  /**
   * @param config the cluster's configuration (a metric reporter, say)
   */
  static void run(Configuration config, Body body) throws Exception {
    config.setString("taskmanager.memory.network.fraction", "0.2");
    config.set(RestOptions.BIND_PORT, "0"); // 8081 may be taken on a shared machine
    MiniCluster cluster =
        new MiniCluster(
            new MiniClusterConfiguration.Builder()
                .setConfiguration(config)
                .setNumTaskManagers(1)
                .setNumSlotsPerTaskManager(2)
                .build());
    cluster.start();
    TestStreamEnvironment.setAsContext(cluster, 1);
    try {
      body.run();
    } finally {
      TestStreamEnvironment.unsetAsContext();
      cluster.close();
    }
  }
}
