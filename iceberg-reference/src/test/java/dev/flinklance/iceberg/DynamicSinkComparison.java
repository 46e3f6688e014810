package dev.flinklance.iceberg;

import dev.flinklance.testing.Spread;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
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
 * every second). Two workloads, rows appended and upserts and deletes by key, each to 1, 10 and 100
 * tables from one stream: the same total number of records for every table count, so each table
 * gets fewer as there are more. Each case runs twice a round: unthrottled, for records/s, and at
 * one fixed total rate that both sinks sustain, so that their commit latency is compared at equal
 * load.
 *
 * <p>For each sink and case: records/s (the job's net runtime, deployment included) and the
 * source's records/s from its first record to its last ({@link JobTimes}) over the rounds, after a
 * warm-up run on a tenth of the records and the most tables; the ratio Lance / Iceberg taken round
 * by round; commit ms per checkpoint (the checkpoint's last table commit minus its completion,
 * {@link CommitLatency}), the median and the max over a round's checkpoints; bytes on disk of all
 * tables (data and metadata); per table its commits that brought rows, its metadata versions and
 * its files. The last round's tables are read back and compared with the workload's model. Prints,
 * asserts nothing.
 *
 * <p>Arguments: table counts (1,10,100), appended records (800,000), upsert records (200,000), keys
 * per upserted table (2,000), rounds (3), checkpoint interval in ms (1,000), the fixed total rate
 * in records/s (1,000) and the records of a run at that rate (10,000).
 */
public final class DynamicSinkComparison {
  private static final int PARALLELISM = 2;
  private static final List<Function<Path, DynamicSinkUnderTest>> SINKS =
      List.of(LanceSide::new, IcebergSide::new); // Lance first in what is printed

  private final Path work;
  private final int rounds;
  private final long checkpointMillis;

  private DynamicSinkComparison(Path work, int rounds, long checkpointMillis) {
    this.work = work;
    this.rounds = rounds;
    this.checkpointMillis = checkpointMillis;
  }

  /** The workload of a kind for a table count and a number of records. */
  private interface WorkloadOf {
    Workload of(int tables, long records);
  }

  /** How fast the source sends: as fast as the job takes them (perSecond 0), or at a fixed rate. */
  private record Pace(double perSecond, long records) {
    RateLimiterStrategy<?> limiter() {
      return perSecond > 0 ? RateLimiterStrategy.perSecond(perSecond) : RateLimiterStrategy.noOp();
    }

    String label() {
      return perSecond > 0 ? String.format("%,.0f/s", perSecond) : "unthrottled";
    }

    String describe() {
      return String.format("%,d ", records) + (perSecond > 0 ? "at " + label() : label());
    }
  }

  /** One table count at one pace: a row per sink in what is printed. */
  private record Case(int tables, Pace pace, Workload workload) {}

  public static void main(String[] args) throws Exception {
    List<Integer> tableCounts =
        Arrays.stream((args.length > 0 ? args[0] : "1,10,100").split(","))
            .map(Integer::valueOf)
            .toList();
    long appends = args.length > 1 ? Long.parseLong(args[1]) : 800_000;
    long upserts = args.length > 2 ? Long.parseLong(args[2]) : 200_000;
    int keys = args.length > 3 ? Integer.parseInt(args[3]) : 2_000;
    int rounds = args.length > 4 ? Integer.parseInt(args[4]) : 3;
    long checkpointMillis = args.length > 5 ? Long.parseLong(args[5]) : 1_000;
    double rate = args.length > 6 ? Double.parseDouble(args[6]) : 1_000;
    long rateRecords = args.length > 7 ? Long.parseLong(args[7]) : 10_000;
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
          "DynamicLanceSink vs Iceberg's DynamicIcebergSink: %s tables, %d rounds, interleaved,"
              + " after a warm-up run; median (min-max) over the rounds; parallelism %d,"
              + " checkpoint every %d ms; %d processors, Java %s%n",
          tableCounts.stream().map(String::valueOf).reduce((a, b) -> a + "," + b).orElseThrow(),
          rounds,
          PARALLELISM,
          checkpointMillis,
          Runtime.getRuntime().availableProcessors(),
          Runtime.version());
      DynamicSinkComparison bench = new DynamicSinkComparison(work, rounds, checkpointMillis);
      Pace paced = new Pace(rate, rateRecords);
      bench.compare(
          "appends", tableCounts, List.of(new Pace(0, appends), paced), Workload::appends);
      bench.compare(
          "upserts",
          tableCounts,
          List.of(new Pace(0, upserts), paced),
          (tables, records) -> Workload.upserts(tables, records, keys));
    } finally {
      TestStreamEnvironment.unsetAsContext();
      deleteRecursively(work);
    }
  }

  private void compare(String name, List<Integer> tableCounts, List<Pace> paces, WorkloadOf kind)
      throws Exception {
    List<Case> cases = new ArrayList<>();
    for (int tables : tableCounts) {
      for (Pace pace : paces) {
        cases.add(new Case(tables, pace, kind.of(tables, pace.records())));
      }
    }
    System.out.printf(
        "%n%s: rows of (id BIGINT, v BIGINT, note STRING), %s; records per run: %s%n",
        name,
        cases.get(0).workload().kind(),
        paces.stream().map(Pace::describe).reduce((a, b) -> a + ", " + b).orElseThrow());
    // one warm-up per sink, on the most tables: it warms every code path the cases take
    Workload warmUp = kind.of(Collections.max(tableCounts), paces.get(0).records() / 10);
    for (Function<Path, DynamicSinkUnderTest> sink : SINKS) {
      DynamicSinkUnderTest warm = sink.apply(work.resolve(name + "-warm-up"));
      Jobs.run(warm, warmUp, RateLimiterStrategy.noOp(), PARALLELISM, checkpointMillis);
      deleteRecursively(warm.warehouse());
    }
    List<List<Measurements>> measured = new ArrayList<>();
    cases.forEach(c -> measured.add(List.of(new Measurements(), new Measurements())));
    for (int round = 0; round < rounds; round++) {
      boolean last = round == rounds - 1;
      for (int c = 0; c < cases.size(); c++) {
        Case current = cases.get(c);
        Map<String, Map<Long, List<Object>>> model = last ? current.workload().model() : null;
        for (int k = 0; k < SINKS.size(); k++) {
          // alternate which sink goes first, so that neither always runs after the other
          int s = (round + c) % 2 == 0 ? k : SINKS.size() - 1 - k;
          DynamicSinkUnderTest sink =
              SINKS.get(s).apply(work.resolve(name + "-" + round + "-" + c + "-" + s));
          measure(sink, current, measured.get(c).get(s), model);
          deleteRecursively(sink.warehouse());
        }
      }
    }
    print(cases, measured);
  }

  /** Runs the job once and adds what it measured; of the last round also its tables. */
  private void measure(
      DynamicSinkUnderTest sink,
      Case current,
      Measurements measurements,
      Map<String, Map<Long, List<Object>>> model)
      throws Exception {
    Workload workload = current.workload();
    JobTimes.clear();
    JobExecutionResult result =
        Jobs.run(sink, workload, current.pace().limiter(), PARALLELISM, checkpointMillis);
    measurements.addRound(
        workload.count() / (result.getNetRuntime() / 1000.0),
        JobTimes.sentPerSecond(workload.count()),
        TableRows.bytesUnder(sink.warehouse()),
        CommitLatency.of(sink, workload.tables(), JobTimes.checkpointCompletions()));
    if (model != null) {
      measurements.commitsPerTable = perTable(workload, t -> sink.committedCheckpoints(t).size());
      measurements.versionsPerTable = perTable(workload, sink::versions);
      measurements.filesPerTable = perTable(workload, t -> filesUnder(sink.tableDirectory(t)));
      measurements.equalsModel = equalsModel(sink, model);
    }
  }

  private static void print(List<Case> cases, List<List<Measurements>> measured) {
    String row = "  %-6s %-11s %-18s %-26s %-26s %-16s %-18s %-11s %-10s %-16s %-16s %-16s %s%n";
    System.out.printf(
        row,
        "tables",
        "pace",
        "sink",
        "records/s",
        "sent/s",
        "commit ms median",
        "commit ms max",
        "checkpoints",
        "MB on disk",
        "commits w/ rows",
        "versions/table",
        "files/table",
        "tables equal the model");
    for (int c = 0; c < cases.size(); c++) {
      Case current = cases.get(c);
      for (int s = 0; s < SINKS.size(); s++) {
        Measurements m = measured.get(c).get(s);
        System.out.printf(
            row,
            current.tables(),
            current.pace().label(),
            s == 0 ? "DynamicLanceSink" : "DynamicIcebergSink",
            m.recordsPerSecond.format("%,.0f"),
            m.sentPerSecond.format("%,.0f"),
            m.commitMillisMedian.format("%.0f"),
            m.commitMillisMax.format("%.0f"),
            String.format("%.0f", m.checkpoints.median())
                + (m.untimedCheckpoints > 0 ? " +" + m.untimedCheckpoints + " untimed" : ""),
            String.format("%.1f", m.bytes.median() / 1e6),
            m.commitsPerTable,
            m.versionsPerTable,
            m.filesPerTable,
            m.equalsModel);
      }
      Measurements lance = measured.get(c).get(0);
      Measurements iceberg = measured.get(c).get(1);
      System.out.printf(
          "  %-6s %-11s Lance / Iceberg round by round: records/s %s, commit ms median %s;"
              + " bytes on disk %.2f%n",
          "",
          "",
          lance.recordsPerSecond.ratioTo(iceberg.recordsPerSecond).format("%.2f"),
          lance.commitMillisMedian.ratioTo(iceberg.commitMillisMedian).format("%.2f"),
          lance.bytes.median() / iceberg.bytes.median());
    }
  }

  /** Median (min-max) of a number per table. */
  private static String perTable(Workload workload, Function<String, Number> perTable) {
    Spread stats = new Spread();
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
}
