package dev.flinklance.iceberg;

import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * The one job both sinks run: the records' numbers from one source subtask, through {@link
 * JobTimes}, into the sink.
 */
final class Jobs {
  private Jobs() {}

  /**
   * The cluster both sinks' jobs run on: no restarts (a failure fails the job), and no check for a
   * job's class loader used after the job ended, which Iceberg's catalogs trip (Iceberg's own
   * MiniCluster tests turn it off too).
   */
  static Configuration clusterConfig() {
    Configuration config = new Configuration();
    config.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
    config.set(CoreOptions.CHECK_LEAKED_CLASSLOADER, false);
    return config;
  }

  static JobExecutionResult run(
      DynamicSinkUnderTest sink,
      Records records,
      RateLimiterStrategy rate,
      int parallelism,
      long checkpointMillis)
      throws Exception {
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setParallelism(parallelism);
    env.enableCheckpointing(checkpointMillis);
    DataStream<Long> numbers =
        env.fromSource(
                new DataGeneratorSource<>(i -> i, records.count(), rate, Types.LONG),
                WatermarkStrategy.noWatermarks(),
                "record numbers")
            .setParallelism(1) // one reader: a key's changes leave the source in order
            .map(new JobTimes())
            .name("job times")
            .setParallelism(1); // chained to the source: the order stays
    sink.sink(numbers, records);
    return env.execute(sink.name());
  }
}
