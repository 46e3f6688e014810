package dev.flinklance.e2e.job;

import dev.flinklance.sink.LanceSink;
import dev.flinklance.source.LanceSource;
import dev.flinklance.testing.Changelog;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;

/**
 * The soak run's three jobs (see {@code SoakRun}), each with a checkpoint every 500 ms and in-job
 * compaction with version cleanup:
 *
 * <ul>
 *   <li>{@code append <storage-options> <table> <rows> <rows-per-second> <compaction-options>}: ids
 *       {@code 0..rows-1} ({@link CheckpointedWriteJob#row}), rate-limited;
 *   <li>{@code upsert <storage-options> <table> <changes> <changes-per-second> <compaction-options>
 *       <keys>}: {@link UpsertChangelogJob#changelog}'s changes, upserted by {@code id};
 *   <li>{@code copy <storage-options> <source-table> <copy-table> <compaction-options>}: a
 *       streaming changelog read of the upsert table, upserted by {@code id} into a second table;
 *       runs until cancelled;
 *   <li>{@code lookup <storage-options> <upsert-table> <result-table> <probes> <probes-per-second>
 *       <keys> <compaction-options>}: probes {@code 0..probes-1} (SQL datagen), each looking up key
 *       {@code probe % keys} in the upsert table (a SQL lookup join, the connector's defaults),
 *       appended to a result table that is compacted as the others are (uncompacted, its manifest
 *       and every cached copy of it would grow by a fragment each checkpoint for as long as the run
 *       lasts).
 * </ul>
 *
 * <p>The first argument after the job's name is the tables' storage options, {@code
 * key=value,key=value} (empty for local tables), then the job's own; {@code <compaction-options>}
 * is {@code key=value,key=value} (the sink's {@code compaction.*} keys).
 */
public final class SoakJob {
  private static final long CHECKPOINT_MILLIS = 500;

  private SoakJob() {}

  public static void main(String[] arguments) throws Exception {
    Map<String, String> storage = options(arguments[1]);
    String[] args = new String[arguments.length - 1];
    args[0] = arguments[0];
    System.arraycopy(arguments, 2, args, 1, arguments.length - 2);
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.enableCheckpointing(CHECKPOINT_MILLIS);
    switch (args[0]) {
      case "append" ->
          append(
              env, args[1], storage, Long.parseLong(args[2]), Double.parseDouble(args[3]), args[4]);
      case "upsert" ->
          upsert(
              env,
              args[1],
              storage,
              UpsertChangelogJob.changelog(Long.parseLong(args[2]), Long.parseLong(args[5])),
              Double.parseDouble(args[3]),
              args[4]);
      case "copy" -> copy(env, args[1], args[2], storage, args[3]);
      case "lookup" ->
          lookup(
              env,
              args[1],
              args[2],
              storage,
              Long.parseLong(args[3]),
              args[4],
              Long.parseLong(args[5]),
              args[6]);
      default -> throw new IllegalArgumentException("unknown soak job " + args[0]);
    }
  }

  private static void append(
      StreamExecutionEnvironment env,
      String table,
      Map<String, String> storage,
      long rows,
      double rate,
      String options)
      throws Exception {
    env.fromSource(
            new DataGeneratorSource<>(
                (GeneratorFunction<Long, RowData>) CheckpointedWriteJob::row,
                rows,
                RateLimiterStrategy.perSecond(rate),
                InternalTypeInfo.of(CheckpointedWriteJob.ROW)),
            WatermarkStrategy.noWatermarks(),
            "ids")
        .uid("ids")
        .sinkTo(
            LanceSink.forRowData(CheckpointedWriteJob.ROW)
                .path(table)
                .storageOptions(storage)
                .commitUser("soak-append")
                .options(options(options))
                .build())
        .uid("lance-sink")
        .name("lance");
    env.execute("soak: append into " + table);
  }

  private static void upsert(
      StreamExecutionEnvironment env,
      String table,
      Map<String, String> storage,
      Changelog changelog,
      double rate,
      String options)
      throws Exception {
    UpsertChangelogJob.changelogInto(
        env,
        changelog,
        RateLimiterStrategy.perSecond(rate),
        LanceSink.forRowData(Changelog.ROW_TYPE)
            .path(table)
            .storageOptions(storage)
            .commitUser("soak-upsert")
            .options(options(options)));
    env.execute("soak: changelog upserted into " + table);
  }

  private static void copy(
      StreamExecutionEnvironment env,
      String source,
      String copy,
      Map<String, String> storage,
      String options)
      throws Exception {
    LanceSource changes =
        LanceSource.builder()
            .path(source)
            .storageOptions(storage)
            .streaming()
            .discoveryInterval(Duration.ofSeconds(1))
            .changelog(true)
            .primaryKey("id")
            // the upsert job's cleanup keeps what the copy has not read yet: without it the copy,
            // once behind the cleanup window, failed for good (a version's manifest gone)
            .consumerId("soak-copy")
            .options(tableOptions(options(options)))
            .build();
    env.fromSource(changes, WatermarkStrategy.noWatermarks(), "changes of " + source)
        .setParallelism(1) // a changelog read has one reader: keep its order to the sink
        .uid("changes")
        .sinkTo(
            LanceSink.forRowData(changes.rowType())
                .path(copy)
                .storageOptions(storage)
                .primaryKey("id")
                .commitUser("soak-copy")
                .options(options(options))
                .build())
        .setParallelism(1)
        .uid("lance-sink")
        .name("lance");
    env.execute("soak: changelog of " + source + " into " + copy);
  }

  private static void lookup(
      StreamExecutionEnvironment env,
      String upsertTable,
      String resultTable,
      Map<String, String> storage,
      long probes,
      String probesPerSecond,
      long keys,
      String options) {
    StreamTableEnvironment tables = StreamTableEnvironment.create(env);
    String storageKeys = withKeys(prefixed("storage.", storage));
    tables.executeSql(
        "CREATE TABLE probes (probe BIGINT NOT NULL, k AS probe % "
            + keys
            + ", proc AS PROCTIME()) WITH ('connector' = 'datagen', 'fields.probe.kind' ="
            + " 'sequence', 'fields.probe.start' = '0', 'fields.probe.end' = '"
            + (probes - 1)
            + "', 'rows-per-second' = '"
            + probesPerSecond
            + "')");
    tables.executeSql(
        "CREATE TABLE upserted (id BIGINT NOT NULL, name STRING, version BIGINT, PRIMARY KEY (id)"
            + " NOT ENFORCED) WITH ('connector' = 'lance', 'path' = '"
            + upsertTable
            + "'"
            + storageKeys
            + ")");
    tables.executeSql(
        "CREATE TABLE looked_up (probe BIGINT NOT NULL, k BIGINT, name STRING, version BIGINT)"
            + " WITH ('connector' = 'lance', 'path' = '"
            + resultTable
            + "', 'sink.commit-user' = 'soak-lookup'"
            + storageKeys
            + withKeys(options(options))
            + ")");
    tables.executeSql(
        "INSERT INTO looked_up SELECT p.probe, p.k, u.name, u.version FROM probes AS p LEFT JOIN"
            + " upserted FOR SYSTEM_TIME AS OF p.proc AS u ON p.k = u.id");
  }

  /**
   * The options that are not the sink's {@code compaction.*}: the table's, which a source takes.
   */
  private static Map<String, String> tableOptions(Map<String, String> options) {
    Map<String, String> table = new LinkedHashMap<>(options);
    table.keySet().removeIf(key -> key.startsWith("compaction."));
    return table;
  }

  /** {@code , 'key' = 'value'} for each option: the rest of a SQL WITH clause. */
  private static String withKeys(Map<String, String> options) {
    StringBuilder keys = new StringBuilder();
    options.forEach((key, value) -> keys.append(", '%s' = '%s'".formatted(key, value)));
    return keys.toString();
  }

  private static Map<String, String> prefixed(String prefix, Map<String, String> options) {
    Map<String, String> keys = new LinkedHashMap<>();
    options.forEach((key, value) -> keys.put(prefix + key, value));
    return keys;
  }

  static Map<String, String> options(String keyValues) {
    Map<String, String> options = new LinkedHashMap<>();
    if (keyValues.isEmpty()) {
      return options;
    }
    for (String pair : keyValues.split(",")) {
      int eq = pair.indexOf('=');
      options.put(pair.substring(0, eq).trim(), pair.substring(eq + 1).trim());
    }
    return options;
  }
}
