package dev.flinklance.sink.bench;

import dev.flinklance.sink.LanceSink;
import dev.flinklance.sink.LanceSinkBuilder;
import dev.flinklance.sink.dynamic.DynamicLanceSink;
import dev.flinklance.sink.dynamic.DynamicRecord;
import dev.flinklance.sink.dynamic.DynamicRecordTypeInfo;
import dev.flinklance.testing.LanceTestTables;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.types.RowKind;

/**
 * One stream into many tables: {@link DynamicLanceSink} against the strongest baseline without it,
 * one {@link LanceSink} per table in the same job (each table's records filtered out of the same
 * stream), for appends and for upserts by key (90% upserts, 10% deletes over 2,000 keys per table).
 * After an untimed warm-up job, repetitions alternate between the two; prints records/s
 * (min/median/max), the ratio of the medians and the commits each table got. Asserts nothing.
 *
 * <p>Usage: {@code bin/bench-dynamic [tables=50] [records=400000] [repetitions=3] [baseline=true]}:
 * without the baseline (hundreds of tables) only the dynamic sink runs.
 */
public final class DynamicSinkBenchmark {
  private static final RowType ROW =
      RowType.of(
          new LogicalType[] {
            new BigIntType(false), new BigIntType(), new VarCharType(VarCharType.MAX_LENGTH)
          },
          new String[] {"id", "v", "payload"});
  private static final int KEYS = 2_000;
  private static final int PARALLELISM = 2;

  private DynamicSinkBenchmark() {}

  public static void main(String[] args) throws Exception {
    int tables = args.length > 0 ? Integer.parseInt(args[0]) : 50;
    long records = args.length > 1 ? Long.parseLong(args[1]) : 400_000;
    int repetitions = args.length > 2 ? Integer.parseInt(args[2]) : 3;
    boolean baseline = args.length <= 3 || Boolean.parseBoolean(args[3]);
    Path dir = Files.createTempDirectory("bench-dynamic");
    System.out.printf(
        "%d tables, %,d records of ~60 B, parallelism %d, checkpoints every second, %d"
            + " repetitions each, alternating%n%n",
        tables, records, PARALLELISM, repetitions);
    System.out.printf(
        "%-8s  %-22s  %28s  %8s  %s%n",
        "workload", "sink", "records/s min/median/max", "ratio", "commits per table");
    // Untimed: the first job of a JVM pays for class loading and JIT compilation.
    run(dir.resolve("warm-up").toString(), tables, records / 10, true, true);
    for (boolean keyed : new boolean[] {false, true}) {
      Map<String, List<Double>> rates = new TreeMap<>();
      Map<String, String> commits = new TreeMap<>();
      for (int rep = 0; rep < repetitions; rep++) {
        for (boolean dynamic : baseline ? new boolean[] {true, false} : new boolean[] {true}) {
          String name = dynamic ? "DynamicLanceSink" : "a LanceSink per table";
          Path warehouse = dir.resolve(name.replace(' ', '-') + "-" + keyed + "-" + rep);
          long start = System.nanoTime();
          run(warehouse.toString(), tables, records, keyed, dynamic);
          double seconds = (System.nanoTime() - start) / 1e9;
          rates.computeIfAbsent(name, n -> new ArrayList<>()).add(records / seconds);
          commits.put(name, commitsPerTable(warehouse.toString(), tables));
        }
      }
      double dynamicMedian = median(rates.get("DynamicLanceSink"));
      double baselineMedian = baseline ? median(rates.get("a LanceSink per table")) : Double.NaN;
      for (Map.Entry<String, List<Double>> rate : rates.entrySet()) {
        List<Double> sorted = new ArrayList<>(rate.getValue());
        Collections.sort(sorted);
        System.out.printf(
            "%-8s  %-22s  %8.0f / %8.0f / %8.0f  %8s  %s%n",
            keyed ? "upsert" : "append",
            rate.getKey(),
            sorted.get(0),
            median(sorted),
            sorted.get(sorted.size() - 1),
            rate.getKey().equals("DynamicLanceSink")
                ? String.format("%.2fx", dynamicMedian / baselineMedian)
                : "1.00x",
            commits.get(rate.getKey()));
      }
    }
  }

  private static void run(
      String warehouse, int tables, long records, boolean keyed, boolean dynamic) throws Exception {
    Configuration conf = new Configuration();
    conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
    env.setParallelism(PARALLELISM);
    env.enableCheckpointing(1_000);
    DataStream<DynamicRecord> stream =
        env.fromSource(
                new DataGeneratorSource<>(
                    i -> record(i, tables, keyed),
                    records,
                    RateLimiterStrategy.noOp(),
                    new DynamicRecordTypeInfo()),
                WatermarkStrategy.noWatermarks(),
                "records")
            .setParallelism(1);
    if (dynamic) {
      stream.sinkTo(DynamicLanceSink.builder().warehouse(warehouse).build());
    } else {
      for (int t = 0; t < tables; t++) {
        String table = table(t);
        LanceSinkBuilder<RowData> sink =
            LanceSink.forRowData(ROW).path(warehouse + "/db/" + table + ".lance");
        if (keyed) {
          sink.primaryKey("id");
        }
        stream
            .filter(r -> r.table().equals(table))
            .map(DynamicRecord::row)
            .returns(InternalTypeInfo.of(ROW))
            .sinkTo(sink.build());
      }
    }
    env.execute();
  }

  private static DynamicRecord record(long i, int tables, boolean keyed) {
    String table = table((int) (i % tables));
    long j = i / tables;
    GenericRowData row =
        GenericRowData.of(
            keyed ? Math.floorMod(j * 7919, KEYS) : j,
            j,
            StringData.fromString("payload-" + Long.toHexString(i * 0x9E3779B97F4A7C15L)));
    if (!keyed) {
      return DynamicRecord.append("db", table, ROW, row);
    }
    row.setRowKind(j % 10 == 9 ? RowKind.DELETE : RowKind.UPDATE_AFTER);
    return DynamicRecord.change("db", table, ROW, row, List.of("id"));
  }

  private static String table(int index) {
    return String.format("t%03d", index);
  }

  private static String commitsPerTable(String warehouse, int tables) {
    List<Integer> counts = new ArrayList<>();
    for (int t = 0; t < tables; t++) {
      counts.add(LanceTestTables.sinkCommits(warehouse + "/db/" + table(t) + ".lance").size());
    }
    Collections.sort(counts);
    return counts.get(0) + ".." + counts.get(counts.size() - 1);
  }

  private static double median(List<Double> values) {
    List<Double> sorted = new ArrayList<>(values);
    Collections.sort(sorted);
    return sorted.get(sorted.size() / 2);
  }
}
