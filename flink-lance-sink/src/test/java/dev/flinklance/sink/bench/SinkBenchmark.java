package dev.flinklance.sink.bench;

import dev.flinklance.dataset.LanceDatasetOptions;
import dev.flinklance.sink.LanceSink;
import dev.flinklance.sink.LanceSinkConfig;
import dev.flinklance.testing.BenchRows;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.util.TestStreamEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.lance.CommitBuilder;
import org.lance.Dataset;
import org.lance.Fragment;
import org.lance.FragmentMetadata;
import org.lance.Transaction;
import org.lance.WriteParams;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.ScanOptions;
import org.lance.operation.Append;

/**
 * Throughput of {@link LanceSink} against raw Lance on the same data, measured in one run, and the
 * committer's cost per checkpoint as the table's history grows. Prints results; asserts nothing.
 *
 * <p>Run with {@code bin/bench [rows=500000] [repetitions=5]}.
 */
public final class SinkBenchmark {
  private static final long BUFFER_BYTES = MemorySize.ofMebiBytes(64).getBytes();
  private static final InMemoryReporter REPORTER = InMemoryReporter.createWithRetainedMetrics();
  private static final String RAW_TABLE = "raw-last";
  private static final String SINK_TABLE = "sink-last";

  private final Path work;
  private final MiniCluster cluster;
  private int runs;

  private SinkBenchmark(Path work, MiniCluster cluster) {
    this.work = work;
    this.cluster = cluster;
  }

  public static void main(String[] args) throws Exception {
    long rows = args.length > 0 ? Long.parseLong(args[0]) : 500_000;
    int repetitions = args.length > 1 ? Integer.parseInt(args[1]) : 5;
    Path work = Files.createTempDirectory("flink-lance-bench");
    Configuration config = REPORTER.addToConfiguration(new Configuration());
    try (MiniCluster cluster =
        new MiniCluster(
            new MiniClusterConfiguration.Builder()
                .setConfiguration(config)
                .setNumTaskManagers(1)
                .setNumSlotsPerTaskManager(2)
                .build())) {
      cluster.start();
      TestStreamEnvironment.setAsContext(cluster, 1);
      new SinkBenchmark(work, cluster).run(rows, repetitions);
    } finally {
      TestStreamEnvironment.unsetAsContext();
      deleteRecursively(work);
    }
  }

  private void run(long rows, int repetitions) throws Exception {
    System.out.printf(
        "flink-lance sink benchmark: %,d rows (id, category, score, %d-dim float vector), %d"
            + " repetitions, median reported%n",
        rows, BenchRows.DIMENSION, repetitions);
    rawLance(10_000, false);
    sink(10_000, false);

    List<Double> raw = new ArrayList<>();
    List<Double> sink = new ArrayList<>();
    for (int i = 0; i < repetitions; i++) {
      boolean last = i == repetitions - 1;
      raw.add(rawLance(rows, last));
      sink.add(sink(rows, last));
    }
    double rawRate = median(raw);
    double sinkRate = median(sink);
    double bytesPerRow = 8 + 12 + 8 + BenchRows.DIMENSION * 4;
    System.out.printf(
        "  raw Lance (Fragment.write + 1 commit): %,12.0f rows/s  %7.1f MB/s%n",
        rawRate, rawRate * bytesPerRow / 1e6);
    System.out.printf(
        "  LanceSink (MiniCluster, parallelism 1): %,12.0f rows/s  %7.1f MB/s%n",
        sinkRate, sinkRate * bytesPerRow / 1e6);
    System.out.printf("  sink / raw: %.2f   (target >= 0.85)%n", sinkRate / rawRate);
    System.out.printf(
        "  writer Arrow peak: %.1f MB with sink.max-buffer-size %.1f MB%n",
        writerPeakBytes() / 1e6, BUFFER_BYTES / 1e6);
    scanBothTables();
    fragmentsPerCheckpoint(rows);

    committerCostByHistory();
  }

  /** The baseline: generate straight into Arrow, write fragment files, commit once. */
  private double rawLance(long rows, boolean keep) throws Exception {
    String uri = newTable();
    long batchRows = BUFFER_BYTES / (8 + 12 + 8 + BenchRows.DIMENSION * 4);
    long start = System.nanoTime();
    try (BufferAllocator allocator = new RootAllocator()) {
      try (Dataset created =
          Dataset.write()
              .allocator(allocator)
              .uri(uri)
              .schema(BenchRows.ARROW_SCHEMA)
              .mode(WriteParams.WriteMode.CREATE)
              .execute()) {
        List<FragmentMetadata> fragments = new ArrayList<>();
        for (long from = 0; from < rows; from += batchRows) {
          try (VectorSchemaRoot root = VectorSchemaRoot.create(BenchRows.ARROW_SCHEMA, allocator)) {
            BenchRows.fill(root, from, Math.min(rows, from + batchRows));
            fragments.addAll(
                Fragment.write().datasetUri(uri).allocator(allocator).data(root).execute());
          }
        }
        try (Transaction append =
                new Transaction.Builder()
                    .readVersion(created.version())
                    .operation(Append.builder().fragments(fragments).build())
                    .build();
            Dataset ignored = new CommitBuilder(created).execute(append)) {
          // one commit for the whole run
        }
      }
    }
    double rate = rows / seconds(start);
    keepOrDelete(uri, keep, RAW_TABLE);
    return rate;
  }

  /** The same rows through a bounded job: generator, LanceSink, commit at end of input. */
  private double sink(long rows, boolean keep) throws Exception {
    String uri = newTable();
    JobExecutionResult result = sinkJob(uri, rows, 1, 0);
    keepOrDelete(uri, keep, SINK_TABLE);
    return rows / (result.getNetRuntime() / 1000.0);
  }

  /**
   * @param checkpointMillis checkpoint interval, 0 for none
   */
  private JobExecutionResult sinkJob(String uri, long rows, int parallelism, long checkpointMillis)
      throws Exception {
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setParallelism(parallelism);
    if (checkpointMillis > 0) {
      env.enableCheckpointing(checkpointMillis);
    }
    // The sink copies each record into Arrow at once, so it is safe with object reuse, which
    // spares Flink's defensive copy of every record (3 KB here) between chained operators.
    env.getConfig().enableObjectReuse();
    env.fromSource(
            new DataGeneratorSource<>(
                (GeneratorFunction<Long, RowData>) BenchRows::row,
                rows,
                RateLimiterStrategy.noOp(),
                InternalTypeInfo.of(BenchRows.ROW_TYPE)),
            WatermarkStrategy.noWatermarks(),
            "rows")
        .sinkTo(
            LanceSink.forRowData(BenchRows.ROW_TYPE)
                .path(uri)
                .vectorColumn("embedding", BenchRows.DIMENSION)
                .maxBufferBytes(BUFFER_BYTES)
                .build());
    return env.execute("bench-" + runs);
  }

  private void keepOrDelete(String uri, boolean keep, String name) throws Exception {
    if (keep) {
      Files.move(Path.of(uri), work.resolve(name));
    } else {
      deleteRecursively(Path.of(uri));
    }
  }

  /**
   * A full scan of the last repetition's tables (every column, one thread): what the fragment count
   * costs a reader.
   */
  private void scanBothTables() throws Exception {
    String raw = work.resolve(RAW_TABLE).toString();
    String sink = work.resolve(SINK_TABLE).toString();
    scan(raw);
    scan(sink);
    List<Double> rawRates = new ArrayList<>();
    List<Double> sinkRates = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      rawRates.add(scan(raw));
      sinkRates.add(scan(sink));
    }
    System.out.printf(
        "  full scan: raw Lance's table (%d fragments) %,.0f rows/s, the sink's (%d fragments)"
            + " %,.0f rows/s; ratio %.2f%n",
        fragments(raw),
        median(rawRates),
        fragments(sink),
        median(sinkRates),
        median(sinkRates) / median(rawRates));
  }

  private static double scan(String uri) throws Exception {
    long rows = 0;
    long start = System.nanoTime();
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = Dataset.open().allocator(allocator).uri(uri).build();
        LanceScanner scanner = dataset.newScan(new ScanOptions.Builder().build());
        ArrowReader reader = scanner.scanBatches()) {
      while (reader.loadNextBatch()) {
        rows += reader.getVectorSchemaRoot().getRowCount();
      }
    }
    return rows / seconds(start);
  }

  private static int fragments(String uri) {
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = Dataset.open().allocator(allocator).uri(uri).build()) {
      return dataset.getFragments().size();
    }
  }

  /** A streaming job at parallelism 2 checkpointing every second: fragments per commit. */
  private void fragmentsPerCheckpoint(long rows) throws Exception {
    String uri = newTable();
    sinkJob(uri, rows, 2, 1_000);
    int commits = 0;
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = Dataset.open().allocator(allocator).uri(uri).build()) {
      commits = (int) dataset.version() - 1;
    }
    int fragments = fragments(uri);
    System.out.printf(
        "  checkpointing every 1 s at parallelism 2: %d commits, %d fragments: %.2f fragments per"
            + " checkpoint per writer%n",
        commits, fragments, fragments / (2.0 * commits));
    deleteRecursively(Path.of(uri));
  }

  private long writerPeakBytes() {
    return REPORTER.findGroups("Writer").stream()
        .flatMap(group -> REPORTER.getMetricsByGroup(group).entrySet().stream())
        .filter(e -> e.getKey().equals("lanceArrowPeakBytes"))
        .mapToLong(e -> (Long) ((Gauge<?>) e.getValue()).getValue())
        .max()
        .orElse(-1);
  }

  /**
   * Commits one small fragment per simulated checkpoint through the real committer and reports the
   * median commit time around version 10 and around version 1,000. A Lance commit rewrites the
   * manifest, whose size follows the fragment count, so the history effect is measured with
   * fragments kept bounded by compaction (what a production table runs with); the run without
   * compaction shows the fragment-count effect.
   */
  private void committerCostByHistory() throws Exception {
    commitTimes(200, 0);
    double[] compacted = commitTimes(1_000, 50);
    double[] accumulated = commitTimes(1_000, 0);
    System.out.printf(
        "  committer per checkpoint, compaction every 50 commits: %.2f ms at ~10 versions, %.2f ms"
            + " at ~1,000 versions; ratio %.2f (target <= 1.5)%n",
        compacted[0], compacted[1], compacted[1] / compacted[0]);
    System.out.printf(
        "  committer per checkpoint, no compaction (1,000 fragments at the end): %.2f ms at ~10"
            + " versions, %.2f ms at ~1,000 versions%n",
        accumulated[0], accumulated[1]);
  }

  /**
   * @param compactEvery compact the table (untimed) after this many commits; 0 never
   * @return median milliseconds of commits 2..21 and of the last 20
   */
  private double[] commitTimes(int commits, int compactEvery) throws Exception {
    LanceSinkConfig config = committerConfig();
    long[] nanos = new long[commits];
    try (CommitterProbe probe = new CommitterProbe(config)) {
      for (int checkpoint = 1; checkpoint <= commits; checkpoint++) {
        nanos[checkpoint - 1] = probe.commitCheckpoint(checkpoint);
        if (compactEvery > 0 && checkpoint % compactEvery == 0) {
          probe.compact();
        }
      }
    }
    return new double[] {medianMillis(nanos, 1, 21), medianMillis(nanos, commits - 20, commits)};
  }

  private LanceSinkConfig committerConfig() {
    Configuration conf = new Configuration();
    conf.set(LanceDatasetOptions.PATH, newTable());
    return LanceSinkConfig.from(conf);
  }

  private static double medianMillis(long[] nanos, int from, int to) {
    long[] window = Arrays.copyOfRange(nanos, from, to);
    Arrays.sort(window);
    return window[window.length / 2] / 1e6;
  }

  private String newTable() {
    return work.resolve("t" + (runs++)).toString();
  }

  private static double seconds(long startNanos) {
    return (System.nanoTime() - startNanos) / 1e9;
  }

  private static double median(List<Double> values) {
    List<Double> sorted = new ArrayList<>(values);
    sorted.sort(Double::compare);
    return sorted.get(sorted.size() / 2);
  }

  private static void deleteRecursively(Path path) throws Exception {
    try (var files = Files.walk(path)) {
      files.sorted((a, b) -> b.compareTo(a)).forEach(p -> p.toFile().delete());
    }
  }
}
