package dev.flinklance.iceberg;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Stream;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.streaming.util.TestStreamEnvironment;

/**
 * Benchmark: the same records through {@code DynamicLanceSink} and Iceberg's {@code
 * DynamicIcebergSink}, each with its defaults, in jobs taking turns on one MiniCluster (one
 * TaskManager, 2 slots, the job at parallelism 2, the records from one source subtask, a checkpoint
 * every second). Two workloads: rows appended to 50 tables, and upserts and deletes by key to 50
 * tables. For each: records/s (the job's net runtime, deployment included) over the rounds, after a
 * warm-up round on a tenth of the records; the ratio Lance / Iceberg taken round by round; bytes on
 * disk of all tables (data and metadata); per table its commits that brought rows, its metadata
 * versions and its files. The last round's tables are read back and compared with the workload's
 * model. Prints, asserts nothing.
 *
 * <p>Arguments: tables (50), appended records (2,000,000), upsert records (500,000), keys per
 * upserted table (2,000), rounds (3), checkpoint interval in ms (1,000).
 */
public final class DynamicSinkComparison {
  private static final int PARALLELISM = 2;

  private final Path work;
  private final int rounds;
  private final long checkpointMillis;

  private DynamicSinkComparison(Path work, int rounds, long checkpointMillis) {
    this.work = work;
    this.rounds = rounds;
    this.checkpointMillis = checkpointMillis;
  }

  public static void main(String[] args) throws Exception {
    int tables = args.length > 0 ? Integer.parseInt(args[0]) : 50;
    long appends = args.length > 1 ? Long.parseLong(args[1]) : 2_000_000;
    long upserts = args.length > 2 ? Long.parseLong(args[2]) : 500_000;
    int keys = args.length > 3 ? Integer.parseInt(args[3]) : 2_000;
    int rounds = args.length > 4 ? Integer.parseInt(args[4]) : 3;
    long checkpointMillis = args.length > 5 ? Long.parseLong(args[5]) : 1_000;
    Path work = Files.createTempDirectory("dynamic-sink-comparison");
    try (MiniCluster cluster =
        new MiniCluster(
            new MiniClusterConfiguration.Builder()
                .setConfiguration(Jobs.clusterConfig())
                .setNumTaskManagers(1)
                .setNumSlotsPerTaskManager(PARALLELISM)
                .build())) {
      cluster.start();
      TestStreamEnvironment.setAsContext(cluster, PARALLELISM);
      System.out.printf(
          "DynamicLanceSink vs Iceberg's DynamicIcebergSink: %d rounds, interleaved, after a"
              + " warm-up round; median (min-max); parallelism %d, checkpoint every %d ms;"
              + " %d processors, Java %s%n",
          rounds,
          PARALLELISM,
          checkpointMillis,
          Runtime.getRuntime().availableProcessors(),
          Runtime.version());
      DynamicSinkComparison bench = new DynamicSinkComparison(work, rounds, checkpointMillis);
      bench.compare(
          "appends", Workload.appends(tables, appends), Workload.appends(tables, appends / 10));
      bench.compare(
          "upserts",
          Workload.upserts(tables, upserts, keys),
          Workload.upserts(tables, upserts / 10, keys));
    } finally {
      TestStreamEnvironment.unsetAsContext();
      deleteRecursively(work);
    }
  }

  private void compare(String name, Workload workload, Workload warmUp) throws Exception {
    System.out.printf(
        "%n%s: %s, rows of (id BIGINT, v BIGINT, note STRING)%n", name, workload.describe());
    List<Function<Path, DynamicSinkUnderTest>> sinks = List.of(LanceSide::new, IcebergSide::new);
    for (Function<Path, DynamicSinkUnderTest> sink : sinks) {
      DynamicSinkUnderTest warm = sink.apply(work.resolve(name + "-warm-up"));
      run(warm, warmUp);
      deleteRecursively(warm.warehouse());
    }
    List<Stats> rates = List.of(new Stats(), new Stats());
    List<Stats> bytes = List.of(new Stats(), new Stats());
    List<DynamicSinkUnderTest> last = new ArrayList<>();
    for (int round = 0; round < rounds; round++) {
      last.clear();
      for (int k = 0; k < sinks.size(); k++) {
        // alternate which sink goes first, so that neither always runs after the other
        int s = round % 2 == 0 ? k : sinks.size() - 1 - k;
        DynamicSinkUnderTest sink = sinks.get(s).apply(work.resolve(name + "-" + round + "-" + s));
        rates.get(s).add(workload.count() / run(sink, workload));
        bytes.get(s).add(TableRows.bytesUnder(sink.warehouse()));
        last.add(sink);
      }
      if (round < rounds - 1) {
        for (DynamicSinkUnderTest sink : last) {
          deleteRecursively(sink.warehouse());
        }
      }
    }
    last.sort(Comparator.comparing(DynamicSinkUnderTest::name).reversed()); // Lance first
    Map<String, Map<Long, List<Object>>> model = workload.model();
    System.out.printf(
        "  %-20s %-32s %-18s %-26s %-22s %-18s %s%n",
        "",
        "records/s",
        "MB on disk",
        "commits with rows/table",
        "metadata versions/table",
        "files/table",
        "tables equal the model");
    for (int s = 0; s < sinks.size(); s++) {
      DynamicSinkUnderTest sink = last.get(s);
      System.out.printf(
          "  %-20s %-32s %-18s %-26s %-22s %-18s %s%n",
          sink.name(),
          rates.get(s).format("%,.0f"),
          String.format("%.1f", bytes.get(s).median() / 1e6),
          perTable(workload, t -> sink.committedCheckpoints(t).size()),
          perTable(workload, sink::versions),
          perTable(workload, t -> filesUnder(sink.tableDirectory(t))),
          equalsModel(sink, model));
    }
    System.out.printf(
        "  Lance / Iceberg records/s, round by round: %s; bytes on disk: %.2f%n",
        rates.get(0).ratioTo(rates.get(1)).format("%.2f"),
        bytes.get(0).median() / bytes.get(1).median());
  }

  /** Runs the job; its net runtime in seconds. */
  private double run(DynamicSinkUnderTest sink, Workload workload) throws Exception {
    JobExecutionResult result =
        Jobs.run(sink, workload, RateLimiterStrategy.noOp(), PARALLELISM, checkpointMillis);
    return result.getNetRuntime() / 1000.0;
  }

  /** Median (min-max) of a number per table. */
  private static String perTable(Workload workload, Function<String, Number> perTable) {
    Stats stats = new Stats();
    for (String table : workload.tables()) {
      stats.add(perTable.apply(table).doubleValue());
    }
    return stats.format("%.0f");
  }

  private static String equalsModel(
      DynamicSinkUnderTest sink, Map<String, Map<Long, List<Object>>> model) {
    for (Map.Entry<String, Map<Long, List<Object>>> table : model.entrySet()) {
      if (!sink.rows(table.getKey()).equals(table.getValue())) {
        return "no: " + table.getKey() + " differs";
      }
    }
    return "yes";
  }

  private static long filesUnder(Path dir) {
    return TableRows.filesUnder(dir, "");
  }

  private static void deleteRecursively(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      paths
          .sorted(Comparator.reverseOrder())
          .forEach(
              path -> {
                try {
                  Files.delete(path);
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                }
              });
    }
  }

  /** Repeated measurements of one quantity: median (min-max), and ratios round by round. */
  private static final class Stats {
    private final List<Double> values = new ArrayList<>();

    void add(double value) {
      values.add(value);
    }

    double median() {
      List<Double> sorted = values.stream().sorted().toList();
      int n = sorted.size();
      return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    Stats ratioTo(Stats other) {
      Stats ratios = new Stats();
      for (int i = 0; i < Math.min(values.size(), other.values.size()); i++) {
        ratios.add(values.get(i) / other.values.get(i));
      }
      return ratios;
    }

    String format(String number) {
      double min = values.stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN);
      double max = values.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
      return String.format(number + " (" + number + "-" + number + ")", median(), min, max);
    }
  }
}
