package dev.flinklance.compactor.bench;

import dev.flinklance.compactor.testing.DynamicTables;
import dev.flinklance.sink.dynamic.DynamicLanceSink;
import dev.flinklance.sink.dynamic.DynamicLanceSinkBuilder;
import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.Spread;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.lance.Dataset;
import org.lance.Fragment;

/**
 * The dynamic sink with and without {@code compaction.enabled} on the same records into many
 * tables: the ingest rate, and the tables each leaves (fragments, deleted rows kept, bytes, the
 * time of a full read of every table). Runs alternate the order of the two arms. Prints; asserts
 * nothing. Run with {@code bin/bench-compaction dynamic [tables=50] [records=400000]
 * [repetitions=3] [checkpoint-ms=500]}.
 */
public final class DynamicCompactionBenchmark {
  private static final int KEYS_PER_TABLE = 2_000;
  private static final List<String> ARMS = List.of("without compaction", "compaction.enabled");

  private DynamicCompactionBenchmark() {}

  /** What one run measured. */
  private record Run(
      double recordsPerSecond,
      double fragmentsMedian,
      int fragmentsMax,
      double deletedShare,
      double megabytes,
      double readMs) {}

  public static void main(String[] args) throws Exception {
    int tables = args.length > 0 ? Integer.parseInt(args[0]) : 50;
    long records = args.length > 1 ? Long.parseLong(args[1]) : 400_000;
    int repetitions = args.length > 2 ? Integer.parseInt(args[2]) : 3;
    long checkpointMs = args.length > 3 ? Long.parseLong(args[3]) : 500;
    System.out.printf(
        "Dynamic sink without and with compaction.enabled (its defaults): %,d records into %d"
            + " tables (half upserted over %,d keys a table, every 5th change a delete; half"
            + " appended), parallelism 2, a checkpoint every %d ms; %d rounds after a warm-up,"
            + " the arms' order alternating; %d processors, Java %s%n",
        records,
        tables,
        KEYS_PER_TABLE,
        checkpointMs,
        repetitions,
        Runtime.getRuntime().availableProcessors(),
        System.getProperty("java.version"));
    Map<String, List<Run>> runs = new LinkedHashMap<>();
    ARMS.forEach(arm -> runs.put(arm, new ArrayList<>()));
    for (String arm : ARMS) {
      run(arm, new DynamicTables(tables, records / 10, KEYS_PER_TABLE), checkpointMs);
    }
    DynamicTables workload = new DynamicTables(tables, records, KEYS_PER_TABLE);
    for (int round = 0; round < repetitions; round++) {
      List<String> order = round % 2 == 0 ? ARMS : List.of(ARMS.get(1), ARMS.get(0));
      for (String arm : order) {
        runs.get(arm).add(run(arm, workload, checkpointMs));
      }
    }
    print(runs);
  }

  private static Run run(String arm, DynamicTables workload, long checkpointMs) throws Exception {
    Path warehouse = Files.createTempDirectory("lance-dynamic-compaction-bench");
    try {
      DynamicLanceSinkBuilder sink = DynamicLanceSink.builder().warehouse(warehouse.toString());
      if (arm.equals(ARMS.get(1))) {
        sink.option("compaction.enabled", "true");
      }
      StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
      env.setParallelism(2);
      env.enableCheckpointing(checkpointMs);
      env.fromSource(
              workload.source(RateLimiterStrategy.noOp()),
              WatermarkStrategy.noWatermarks(),
              "records")
          .setParallelism(1)
          .sinkTo(sink.build());
      long runtimeMs = env.execute(arm).getNetRuntime();
      return measure(workload, warehouse, workload.count() * 1000.0 / runtimeMs);
    } finally {
      BenchFiles.delete(warehouse);
    }
  }

  private static Run measure(DynamicTables workload, Path warehouse, double recordsPerSecond)
      throws IOException {
    List<Integer> fragments = new ArrayList<>();
    long physical = 0;
    long deleted = 0;
    for (int t = 0; t < workload.tables(); t++) {
      try (BufferAllocator allocator = new RootAllocator();
          Dataset dataset =
              Dataset.open().allocator(allocator).uri(workload.uri(warehouse, t)).build()) {
        fragments.add(dataset.getFragments().size());
        if (DynamicTables.keyed(t)) {
          for (Fragment fragment : dataset.getFragments()) {
            physical += fragment.metadata().getPhysicalRows();
            deleted += fragment.metadata().getNumDeletions();
          }
        }
      }
    }
    long start = System.nanoTime();
    long rows = 0;
    for (int t = 0; t < workload.tables(); t++) {
      rows += LanceTestTables.readColumns(workload.uri(warehouse, t), List.of("id", "v")).size();
    }
    double readMs = (System.nanoTime() - start) / 1e6;
    if (rows == 0) {
      throw new IllegalStateException("no rows read");
    }
    fragments.sort(Integer::compare);
    return new Run(
        recordsPerSecond,
        median(fragments.stream().map(Integer::doubleValue).toList()),
        fragments.get(fragments.size() - 1),
        physical == 0 ? 0 : (double) deleted / physical,
        bytes(warehouse) / 1e6,
        readMs);
  }

  private static long bytes(Path dir) throws IOException {
    try (Stream<Path> files = Files.walk(dir)) {
      long total = 0;
      for (Path file : (Iterable<Path>) files.filter(Files::isRegularFile)::iterator) {
        total += Files.size(file);
      }
      return total;
    }
  }

  private static void print(Map<String, List<Run>> runs) {
    System.out.printf(
        "%n  %-20s %-28s %-22s %-16s %-10s %-22s%n",
        "", "records/s", "fragments/table", "deleted rows", "MB", "full read of all, ms");
    runs.forEach(
        (arm, list) ->
            System.out.printf(
                "  %-20s %-28s %-22s %-16s %-10s %-22s%n",
                arm,
                spread(list.stream().map(Run::recordsPerSecond).toList(), "%,.0f"),
                String.format(
                    "%.0f (max %d)",
                    median(list.stream().map(Run::fragmentsMedian).toList()),
                    list.stream().mapToInt(Run::fragmentsMax).max().orElse(0)),
                String.format(
                    "%.1f%%", 100 * median(list.stream().map(Run::deletedShare).toList())),
                String.format("%.1f", median(list.stream().map(Run::megabytes).toList())),
                spread(list.stream().map(Run::readMs).toList(), "%,.0f")));
    List<Run> off = runs.get(ARMS.get(0));
    List<Run> on = runs.get(ARMS.get(1));
    List<Double> ingest = new ArrayList<>();
    List<Double> read = new ArrayList<>();
    for (int i = 0; i < off.size(); i++) {
      ingest.add(on.get(i).recordsPerSecond() / off.get(i).recordsPerSecond());
      read.add(on.get(i).readMs() / off.get(i).readMs());
    }
    System.out.printf(
        "  with / without compaction, round by round: records/s %s, full-read time %s%n",
        spread(ingest, "%.2f"), spread(read, "%.2f"));
  }

  private static Spread spreadOf(List<Double> values) {
    Spread spread = new Spread();
    spread.addAll(values);
    return spread;
  }

  private static String spread(List<Double> values, String format) {
    return spreadOf(values).format(format);
  }

  private static double median(List<Double> values) {
    return spreadOf(values).median();
  }
}
