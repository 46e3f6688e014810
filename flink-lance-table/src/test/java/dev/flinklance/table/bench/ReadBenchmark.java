package dev.flinklance.table.bench;

import dev.flinklance.access.TableRef;
import dev.flinklance.testing.BenchRows;
import dev.flinklance.testing.LanceTestTables;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableResult;
import org.lance.Dataset;
import org.lance.Fragment;
import org.lance.FragmentMetadata;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.ScanOptions;

/**
 * Read throughput of the SQL source against raw Lance, in one JVM and one run; prints, asserts
 * nothing. The table: {@code rows} rows of id, category, score and a 768-dimension float vector
 * (about 3 KB a row), in fragments of 50,000 rows.
 *
 * <ol>
 *   <li>raw: all four columns into Arrow on one thread, batches of 8,192 rows, nothing copied, with
 *       one {@code Dataset.newScan} and with {@code Fragment.newScan} per fragment in turn; the
 *       faster of the two is the baseline;
 *   <li>SQL: {@code INSERT INTO blackhole SELECT id, category, score, embedding FROM t} in batch
 *       mode at parallelism 1 and 2 on a MiniCluster, and at 1 with object reuse; the job's net
 *       runtime (deployment included);
 *   <li>a 1%-selective filter ({@code id < rows / 100}) with pushdown on and off, rows of the table
 *       scanned per second.
 * </ol>
 *
 * After a warm-up round, {@code repetitions} rounds run every measurement in turn; the median of
 * each is printed. Usage: {@code ReadBenchmark [rows=500000] [repetitions=3] [table-dir]} (a table
 * left in table-dir by an earlier run with the same row count is reused).
 */
public final class ReadBenchmark {
  private static final int ROWS_PER_FRAGMENT = 50_000;
  private static final int BATCH = 8_192;
  private static final String COLUMNS =
      "id BIGINT NOT NULL, category STRING, score DOUBLE, embedding ARRAY<FLOAT NOT NULL>";

  private ReadBenchmark() {}

  public static void main(String[] args) throws Exception {
    int rows = args.length > 0 ? Integer.parseInt(args[0]) : 500_000;
    int repetitions = args.length > 1 ? Integer.parseInt(args[1]) : 3;
    Path dir = args.length > 2 ? Path.of(args[2]) : Files.createTempDirectory("lance-read-bench");
    String uri = dir.resolve("bench-" + rows + ".lance").toAbsolutePath().toString();
    ensureTable(uri, rows);

    BenchCluster.run(
        () -> {
          run(uri, rows, repetitions);
        });
  }

  private static void run(String uri, int rows, int repetitions) throws Exception {
    System.out.printf(
        "flink-lance read benchmark: %,d rows (id, category, score, %d-dim float vector), %d"
            + " fragments, %d repetitions, median reported%n",
        rows, BenchRows.DIMENSION, (rows + ROWS_PER_FRAGMENT - 1) / ROWS_PER_FRAGMENT, repetitions);
    String all = "SELECT id, category, score, embedding FROM %s";
    String filtered = "SELECT id, category, score, embedding FROM %s WHERE id < " + rows / 100;
    Map<String, Rounds.Measurement> measurements = new LinkedHashMap<>();
    measurements.put("raw Dataset.newScan, one thread:", () -> rawScan(uri, rows, false));
    measurements.put("raw Fragment.newScan in turn, one thread:", () -> rawScan(uri, rows, true));
    measurements.put(
        "SQL source, parallelism 1:", () -> sql(uri, 1, false, String.format(all, "t_on")));
    measurements.put(
        "SQL source, parallelism 2:", () -> sql(uri, 2, false, String.format(all, "t_on")));
    measurements.put(
        "SQL source, p=1, pipeline.object-reuse:",
        () -> sql(uri, 1, true, String.format(all, "t_on")));
    measurements.put(
        "1% filter, pushed into Lance, p=1:",
        () -> sql(uri, 1, false, String.format(filtered, "t_on")));
    measurements.put(
        "1% filter, evaluated by Flink, p=1:",
        () -> sql(uri, 1, false, String.format(filtered, "t_off")));
    Map<String, Double> seconds = Rounds.medians(measurements, repetitions);
    seconds.forEach((what, time) -> print(what, rows, time));
    List<Double> times = new ArrayList<>(seconds.values());
    double raw = Math.min(times.get(0), times.get(1));
    System.out.printf(
        "  SQL p=1 / fastest raw: %.2f (target >= 0.8)   SQL p=2 / fastest raw: %.2f%n",
        raw / times.get(2), raw / times.get(3));
    System.out.printf(
        "  pushdown speed-up on the 1%% filter: %.1fx%n", times.get(6) / times.get(5));
  }

  private static void print(String what, int rows, double seconds) {
    System.out.printf("  %-42s %,10.0f rows/s  (%.2f s)%n", what, rows / seconds, seconds);
  }

  /**
   * @param byFragment scan the fragments one after the other (what each source reader does), or the
   *     whole dataset in one scan
   */
  private static double rawScan(String uri, int rows, boolean byFragment) throws Exception {
    long start = System.nanoTime();
    long read = 0;
    ScanOptions options =
        new ScanOptions.Builder()
            .columns(List.of("id", "category", "score", "embedding"))
            .batchSize(BATCH)
            .build();
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = new TableRef(uri, Map.of()).open(allocator)) {
      if (byFragment) {
        for (Fragment fragment : dataset.getFragments()) {
          read += count(fragment.newScan(options));
        }
      } else {
        read += count(dataset.newScan(options));
      }
    }
    if (read != rows) {
      throw new IllegalStateException("raw scan read " + read + " rows of " + rows);
    }
    return (System.nanoTime() - start) / 1e9;
  }

  /**
   * @param objectReuse Flink's {@code pipeline.object-reuse}: chained operators get the source's
   *     row views as they are instead of a copy each
   */
  private static double sql(String uri, int parallelism, boolean objectReuse, String query)
      throws Exception {
    TableEnvironment env = TableEnvironment.create(EnvironmentSettings.inBatchMode());
    env.getConfig().set("table.exec.resource.default-parallelism", Integer.toString(parallelism));
    env.getConfig().set("pipeline.object-reuse", Boolean.toString(objectReuse));
    for (String pushdown : List.of("on", "off")) {
      env.executeSql(
          String.format(
              "CREATE TABLE t_%s (%s) WITH ('connector' = 'lance', 'path' = '%s',"
                  + " 'scan.filter-pushdown.enabled' = '%s')",
              pushdown, COLUMNS, uri, pushdown.equals("on")));
    }
    env.executeSql("CREATE TABLE sink (" + COLUMNS + ") WITH ('connector' = 'blackhole')");
    TableResult result = env.executeSql("INSERT INTO sink " + query);
    JobExecutionResult job = result.getJobClient().orElseThrow().getJobExecutionResult().get();
    return job.getNetRuntime() / 1e3;
  }

  private static long count(LanceScanner scanner) throws Exception {
    long rows = 0;
    try (scanner;
        ArrowReader reader = scanner.scanBatches()) {
      while (reader.loadNextBatch()) {
        rows += reader.getVectorSchemaRoot().getRowCount();
      }
    }
    return rows;
  }

  /** Writes the table (one version, fragments of 50,000 rows) unless a complete one is there. */
  static void ensureTable(String uri, int rows) throws Exception {
    TableRef table = new TableRef(uri, Map.of());
    try (BufferAllocator allocator = new RootAllocator()) {
      Optional<Dataset> existing = table.openIfExists(allocator);
      if (existing.isPresent()) {
        try (Dataset dataset = existing.get()) {
          if (dataset.countRows() == rows) {
            return;
          }
        }
        throw new IllegalStateException(uri + " exists with another row count; remove it");
      }
      System.out.printf("writing %,d rows to %s ...%n", rows, uri);
      table.createIfAbsent(allocator, BenchRows.ARROW_SCHEMA, false, null).orElseThrow().close();
      List<FragmentMetadata> fragments = new ArrayList<>();
      for (int start = 0; start < rows; start += ROWS_PER_FRAGMENT) {
        fragments.addAll(
            writeFragment(uri, allocator, start, Math.min(rows, start + ROWS_PER_FRAGMENT)));
      }
      LanceTestTables.appendFragments(uri, fragments);
    }
  }

  /** The benchmark's rows [from, to) as one fragment file, not committed. */
  static List<FragmentMetadata> writeFragment(
      String uri, BufferAllocator allocator, int from, int to) {
    try (VectorSchemaRoot root = VectorSchemaRoot.create(BenchRows.ARROW_SCHEMA, allocator)) {
      BenchRows.fill(root, from, to);
      return Fragment.write().datasetUri(uri).allocator(allocator).data(root).execute();
    }
  }
}
