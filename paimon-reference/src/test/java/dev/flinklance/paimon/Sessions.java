package dev.flinklance.paimon;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.util.TestStreamEnvironment;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;

/**
 * The cluster and the SQL sessions both sides' jobs run in: one TaskManager with {@link
 * #PARALLELISM} slots, every job at that parallelism.
 */
final class Sessions {
  static final int PARALLELISM = 2;

  /** What runs on the cluster. */
  interface Body {
    void run() throws Exception;
  }

  private Sessions() {}

  /**
   * The cluster's configuration: no restarts (a failure fails the job), no check for a job's class
   * loader used after the job ended (as in iceberg-reference: a catalog's threads may outlive their
   * job), any free REST port (8081 may be taken on a shared machine).
   */
  static Configuration clusterConfig() {
    Configuration config = new Configuration();
    config.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
    config.set(CoreOptions.CHECK_LEAKED_CLASSLOADER, false);
    config.set(RestOptions.BIND_PORT, "0");
    return config;
  }

  /** Runs {@code body} with a MiniCluster as the context of every job it starts. */
  static void onCluster(Body body) throws Exception {
    try (MiniCluster cluster =
        new MiniCluster(
            new MiniClusterConfiguration.Builder()
                .setConfiguration(clusterConfig())
                .setNumTaskManagers(1)
                .setNumSlotsPerTaskManager(PARALLELISM)
                .build())) {
      cluster.start();
      TestStreamEnvironment.setAsContext(cluster, PARALLELISM);
      try {
        body.run();
      } finally {
        TestStreamEnvironment.unsetAsContext();
      }
    }
  }

  /** A streaming job's environment, checkpointing every {@code checkpointMillis} if positive. */
  static StreamExecutionEnvironment streaming(long checkpointMillis) {
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setParallelism(PARALLELISM);
    if (checkpointMillis > 0) {
      env.enableCheckpointing(checkpointMillis);
      // on files, as a deployment keeps them: Flink's default keeps them in the JobManager's
      // memory, at most 5 MB per state handle, which a Lance checkpoint of a few hundred thousand
      // changed keys exceeds (issue 33), failing the job
      Configuration storage = new Configuration();
      storage.set(CheckpointingOptions.CHECKPOINT_STORAGE, "filesystem");
      storage.set(
          CheckpointingOptions.CHECKPOINTS_DIRECTORY,
          Path.of(System.getProperty("java.io.tmpdir"), "paimon-reference-checkpoints")
              .toUri()
              .toString());
      env.configure(storage);
    }
    return env;
  }

  /** A batch job's environment. */
  static StreamExecutionEnvironment batch() {
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setParallelism(PARALLELISM);
    env.setRuntimeMode(RuntimeExecutionMode.BATCH);
    return env;
  }

  /** The SQL session of {@code env}'s jobs, with {@code table} declared in it. */
  static StreamTableEnvironment sql(StreamExecutionEnvironment env, SqlTable table) {
    StreamTableEnvironment tables =
        StreamTableEnvironment.create(
            env,
            env.getConfiguration().get(ExecutionOptions.RUNTIME_MODE) == RuntimeExecutionMode.BATCH
                ? EnvironmentSettings.inBatchMode()
                : EnvironmentSettings.inStreamingMode());
    table.declare(tables);
    return tables;
  }

  /** The job's runtime as the cluster measured it (deployment included), in seconds. */
  static double seconds(TableResult result) throws Exception {
    return result
            .getJobClient()
            .orElseThrow()
            .getJobExecutionResult()
            .get()
            .getNetRuntime(TimeUnit.MILLISECONDS)
        / 1e3;
  }
}
