package dev.flinklance.cdc;

import dev.flinklance.access.LanceDatasetOptions;
import dev.flinklance.sink.dynamic.DynamicRecord;
import dev.flinklance.table.catalog.LanceCatalogFactory;
import dev.flinklance.table.catalog.LanceCatalogOptions;
import java.util.HashMap;
import java.util.Map;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.KafkaSourceBuilder;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.catalog.Catalog;
import org.apache.flink.table.catalog.CatalogDatabaseImpl;
import org.apache.flink.table.catalog.exceptions.DatabaseAlreadyExistException;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.kafka.clients.consumer.OffsetResetStrategy;

/**
 * Keeps one Lance primary-key table per source table up to date from Debezium's JSON change events
 * in Kafka: the tables of a whole database in one job, created at their first event and widened
 * when a source table gains a column, in a database of the Lance catalog.
 *
 * <pre>
 * LanceCdcSyncJob --bootstrap-servers kafka:9092 --topic-pattern 'dbserver1\.inventory\..*' \
 *     --warehouse s3://lake/warehouse --database inventory --storage.aws_region eu-west-1
 * </pre>
 *
 * From a plain JVM it runs on an embedded local Flink; submitted to a cluster it runs there.
 * docs/cdc.md describes the messages it reads, the type mapping and what it does with source DDL.
 */
@PublicEvolving
public final class LanceCdcSyncJob {
  private LanceCdcSyncJob() {}

  /**
   * @throws IllegalArgumentException for bad arguments (after printing the usage)
   * @throws Exception the job's failure
   */
  public static void main(String[] args) throws Exception {
    CdcSyncArgs parsed;
    try {
      parsed = CdcSyncArgs.parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      throw e;
    }
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    build(env, parsed);
    env.execute(
        "Lance CDC sync into database " + parsed.routing.database() + " of " + parsed.warehouse);
  }

  /**
   * Registers the target database in the Lance catalog of the warehouse (if it is not yet), then
   * adds the sync to {@code env}: Kafka source, Debezium reading, {@code DynamicLanceSink}.
   * Checkpointing is enabled at {@code --checkpoint-interval} unless {@code env} has it on already.
   *
   * @param args the command line, as {@link #main} takes it
   * @throws IllegalArgumentException for bad arguments, naming the first one
   */
  public static void build(StreamExecutionEnvironment env, String... args) {
    build(env, CdcSyncArgs.parse(args));
  }

  static void build(StreamExecutionEnvironment env, CdcSyncArgs args) {
    createDatabase(args);
    if (!env.getCheckpointConfig().isCheckpointingEnabled()) {
      env.enableCheckpointing(args.checkpointInterval.toMillis());
    }
    args.parallelism.ifPresent(env::setParallelism);
    changes(env, args).sinkTo(args.sink()).name("Lance Tables").uid("lance-cdc-sink");
  }

  /** The source tables' changes, read from Kafka. */
  static DataStream<DynamicRecord> changes(StreamExecutionEnvironment env, CdcSyncArgs args) {
    return env.fromSource(source(args), WatermarkStrategy.noWatermarks(), "Debezium Messages")
        .uid("lance-cdc-kafka-source");
  }

  private static KafkaSource<DynamicRecord> source(CdcSyncArgs args) {
    KafkaSourceBuilder<DynamicRecord> builder =
        KafkaSource.<DynamicRecord>builder()
            .setBootstrapServers(args.bootstrapServers)
            .setGroupId(args.groupId)
            .setDeserializer(
                new DebeziumDeserializer(
                    new DebeziumChanges(args.routing), args.onInvalidRecord()));
    if (args.topicPattern != null) {
      builder.setTopicPattern(args.topicPattern);
    } else {
      builder.setTopics(args.topics);
    }
    builder.setStartingOffsets(
        switch (args.startingOffsets) {
          case EARLIEST -> OffsetsInitializer.earliest();
          case LATEST -> OffsetsInitializer.latest();
          case GROUP -> OffsetsInitializer.committedOffsets(OffsetResetStrategy.EARLIEST);
        });
    args.kafkaProperties.forEach(builder::setProperty);
    return builder.build();
  }

  /**
   * The sink writes the tables where the catalog finds them; the catalog lists a database only once
   * it is registered.
   */
  private static void createDatabase(CdcSyncArgs args) {
    Map<String, String> options = new HashMap<>();
    options.put(LanceCatalogOptions.WAREHOUSE.key(), args.warehouse);
    args.storageOptions.forEach(
        (key, value) -> options.put(LanceDatasetOptions.STORAGE_PREFIX + key, value));
    Catalog catalog =
        new LanceCatalogFactory()
            .createCatalog(
                new FactoryUtil.DefaultCatalogContext(
                    "lance-cdc",
                    options,
                    new Configuration(),
                    LanceCdcSyncJob.class.getClassLoader()));
    catalog.open();
    try {
      catalog.createDatabase(
          args.routing.database(),
          new CatalogDatabaseImpl(Map.of(), "Tables of the Lance CDC sync"),
          true);
    } catch (DatabaseAlreadyExistException e) {
      throw new IllegalStateException("unreachable with ignoreIfExists", e);
    } finally {
      catalog.close();
    }
  }
}
