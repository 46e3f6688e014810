package dev.flinklance.demo;

import dev.flinklance.commit.VersionTransaction;
import dev.flinklance.sink.LanceSink;
import java.nio.file.Path;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.util.ExceptionUtils;
import org.lance.Dataset;

/**
 * The README's demo: a bounded generator of click events with an 8-dimension embedding, written by
 * {@link LanceSink} into a local Lance table on an embedded Flink MiniCluster, checkpointing every
 * 500 ms. Afterwards it prints the row count and every table version with the checkpoint that
 * committed it.
 *
 * <p>Usage: {@code bin/demo [table-path] [rows]}; default {@code demo-output/events.lance}.
 */
public final class QuickstartDemo {
  private static final String[] ACTIONS = {"view", "click", "add-to-cart", "purchase"};

  static final RowType EVENT =
      (RowType)
          DataTypes.ROW(
                  DataTypes.FIELD("event_id", DataTypes.BIGINT().notNull()),
                  DataTypes.FIELD("user_id", DataTypes.INT()),
                  DataTypes.FIELD("action", DataTypes.STRING()),
                  DataTypes.FIELD("event_time", DataTypes.TIMESTAMP_LTZ(3)),
                  DataTypes.FIELD("embedding", DataTypes.ARRAY(DataTypes.FLOAT().notNull())))
              .notNull()
              .getLogicalType();

  private QuickstartDemo() {}

  public static void main(String[] args) throws Exception {
    String table =
        Path.of(args.length > 0 ? args[0] : "demo-output/events.lance").toAbsolutePath().toString();
    long rows = args.length > 1 ? Long.parseLong(args[1]) : 20_000;

    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setParallelism(2);
    env.enableCheckpointing(500);
    env.fromSource(
            new DataGeneratorSource<>(
                (GeneratorFunction<Long, RowData>) QuickstartDemo::event,
                rows,
                RateLimiterStrategy.perSecond(10_000),
                InternalTypeInfo.of(EVENT)),
            WatermarkStrategy.noWatermarks(),
            "click-events")
        .sinkTo(
            LanceSink.forRowData(EVENT)
                .path(table)
                .commitUser("quickstart-demo")
                .vectorColumn("embedding", 8)
                .build())
        .name("lance: " + table);
    try {
      env.execute("flink-lance quickstart");
    } catch (Exception e) {
      System.err.printf("%nThe demo job failed: %s%n", ownMessage(e));
      System.exit(1);
    }

    printTable(table);
  }

  /** The connector's own message in Flink's chain of wrappers, or the root cause's. */
  static String ownMessage(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t.getClass().getName().startsWith("dev.flinklance.")) {
        return t.getMessage();
      }
    }
    return String.valueOf(ExceptionUtils.stripExecutionException(failure).getMessage());
  }

  static RowData event(long id) {
    float[] embedding = new float[8];
    for (int i = 0; i < embedding.length; i++) {
      embedding[i] = (float) Math.sin(id + i);
    }
    return GenericRowData.of(
        id,
        (int) (id % 1_000),
        StringData.fromString(ACTIONS[(int) (id % ACTIONS.length)]),
        TimestampData.fromEpochMillis(1_767_225_600_000L + id * 10),
        new GenericArrayData(embedding));
  }

  private static void printTable(String uri) {
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = Dataset.open().allocator(allocator).uri(uri).build()) {
      System.out.printf("%nLance table %s%n", uri);
      System.out.printf("rows: %,d   schema: %s%n%n", dataset.countRows(), dataset.getSchema());
      System.out.printf(
          "%-8s %-10s %-11s %-16s %s%n",
          "version", "operation", "checkpoint", "commit user", "rows");
      for (long version = 1; version <= dataset.version(); version++) {
        try (Dataset at = dataset.checkoutVersion(version)) {
          VersionTransaction txn = VersionTransaction.of(at).orElseThrow();
          Map<String, String> stamp = txn.properties();
          System.out.printf(
              "%-8d %-10s %-11s %-16s %,d%n",
              version,
              txn.operation(),
              stamp.getOrDefault("flink.checkpoint-id", "-"),
              stamp.getOrDefault("flink.commit-user", "-"),
              at.countRows());
        }
      }
    }
  }
}
