package dev.flinklance.table.bench;

import dev.flinklance.access.TableRef;
import dev.flinklance.source.LanceSource;
import dev.flinklance.source.LanceSourceBuilder;
import dev.flinklance.testing.Await;
import dev.flinklance.testing.BenchRows;
import dev.flinklance.testing.LanceTestTables;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.table.data.RowData;

/**
 * The streaming source: freshness (from a version's commit to the arrival of its first row) and
 * throughput against the bounded read of the same rows; prints, asserts nothing.
 *
 * <ol>
 *   <li>throughput: the bounded read of {@code rows} benchmark rows (one version, fragments of
 *       50,000), the streaming read of the same version (startAfterVersion(0)), and the streaming
 *       read of the same rows committed as 100 versions; DataStream jobs at parallelism 1 that
 *       count the rows; time from submission to the last row;
 *   <li>freshness: a writer commits a version of 100 rows every 500 ms (Lance's own append) while a
 *       streaming read at {@code scan.discovery-interval} 1 s and 100 ms follows the table; for
 *       each version, the time from its commit instant to its first row reaching the counting map.
 * </ol>
 *
 * Usage: {@code StreamingReadBenchmark [rows=200000] [repetitions=3] [versions=40] [table-dir]}.
 */
public final class StreamingReadBenchmark {
  private static final Map<String, AtomicLong> COUNTS = new ConcurrentHashMap<>();
  private static final Map<String, Long> DONE_AT = new ConcurrentHashMap<>();
  private static final Map<String, Map<Long, Long>> FIRST_ARRIVAL = new ConcurrentHashMap<>();

  /** The longest a count may take: the rows' time is taken by the job, not by the wait. */
  private static final Duration COUNT_TIMEOUT = Duration.ofHours(1);

  private StreamingReadBenchmark() {}

  public static void main(String[] args) throws Exception {
    int rows = args.length > 0 ? Integer.parseInt(args[0]) : 200_000;
    int repetitions = args.length > 1 ? Integer.parseInt(args[1]) : 3;
    int versions = args.length > 2 ? Integer.parseInt(args[2]) : 40;
    Path dir = args.length > 3 ? Path.of(args[3]) : Files.createTempDirectory("lance-stream-bench");
    String oneVersion = dir.resolve("one-" + rows + ".lance").toAbsolutePath().toString();
    String manyVersions = dir.resolve("many-" + rows + ".lance").toAbsolutePath().toString();
    ReadBenchmark.ensureTable(oneVersion, rows);
    writeInVersions(manyVersions, rows, 100);
    BenchCluster.run(() -> run(oneVersion, manyVersions, dir, rows, repetitions, versions));
  }

  private static void run(
      String oneVersion, String manyVersions, Path dir, int rows, int repetitions, int versions)
      throws Exception {
    System.out.printf(
        "flink-lance streaming read benchmark: %,d rows (id, category, score, %d-dim float"
            + " vector), parallelism 1, %d repetitions, median reported%n",
        rows, BenchRows.DIMENSION, repetitions);
    Map<String, Rounds.Measurement> measurements = new LinkedHashMap<>();
    measurements.put(
        "bounded read, one version:",
        () -> countRows(LanceSource.builder().path(oneVersion).build(), rows));
    measurements.put(
        "streaming read, the same version:",
        () -> countRows(streaming(oneVersion, Duration.ofMillis(100)).build(), rows));
    measurements.put(
        "streaming read, 100 versions:",
        () -> countRows(streaming(manyVersions, Duration.ofMillis(100)).build(), rows));
    Rounds.medians(measurements, repetitions)
        .forEach(
            (what, seconds) ->
                System.out.printf(
                    "  %-36s %,10.0f rows/s  (%.2f s)%n", what, rows / seconds, seconds));
    for (Duration interval : List.of(Duration.ofSeconds(1), Duration.ofMillis(100))) {
      freshness(
          dir.resolve("fresh-" + interval.toMillis() + ".lance").toString(), interval, versions);
    }
  }

  private static LanceSourceBuilder streaming(String uri, Duration interval) {
    return LanceSource.builder()
        .path(uri)
        .streaming()
        .startAfterVersion(0)
        .discoveryInterval(interval);
  }

  /** Seconds from the job's submission until {@code rows} rows have passed the counting map. */
  private static double countRows(LanceSource source, long rows) throws Exception {
    String token = Long.toString(System.nanoTime());
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setParallelism(1);
    env.fromSource(source, WatermarkStrategy.noWatermarks(), "lance")
        .map(new Count(token, rows, false))
        .returns(source.getProducedType())
        .sinkTo(new DiscardingSink<>());
    long start = System.nanoTime();
    JobClient job = env.executeAsync();
    Await.until(rows + " rows counted", COUNT_TIMEOUT, job, () -> DONE_AT.containsKey(token));
    long done = DONE_AT.get(token);
    if (!job.getJobStatus().get().isGloballyTerminalState()) {
      job.cancel().get(); // a streaming read never ends
    }
    return (done - start) / 1e9;
  }

  /** Throws the failure of a job that should still run, or says that it ended. */
  private static void failIfEnded(JobClient job, String token) throws Exception {
    if (job.getJobStatus().get().isGloballyTerminalState()) {
      job.getJobExecutionResult().get(); // throws the job's failure
      throw new IllegalStateException("the job ended after " + COUNTS.get(token) + " rows");
    }
  }

  /**
   * Commits {@code versions} versions of 100 rows, one every 500 ms, while a streaming read
   * follows; prints the commit-to-first-row times.
   */
  private static void freshness(String uri, Duration interval, int versions) throws Exception {
    writeInVersions(uri, 0, 1);
    String token = Long.toString(System.nanoTime());
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setParallelism(1);
    LanceSource source =
        LanceSource.builder()
            .path(uri)
            .streaming()
            .startFromLatest()
            .discoveryInterval(interval)
            .build();
    env.fromSource(source, WatermarkStrategy.noWatermarks(), "lance")
        .map(new Count(token, Long.MAX_VALUE, true))
        .returns(source.getProducedType()) // else Kryo copies the rows, and fails on Java 17
        .sinkTo(new DiscardingSink<>());
    JobClient job = env.executeAsync();
    Thread.sleep(3_000); // the job runs and has taken its start position
    List<Long> commits = new ArrayList<>();
    try (BufferAllocator allocator = new RootAllocator()) {
      for (int version = 0; version < versions; version++) {
        failIfEnded(job, token);
        int from = version * 100;
        LanceTestTables.appendFragments(
            uri, ReadBenchmark.writeFragment(uri, allocator, from, from + 100));
        commits.add(LanceTestTables.commitMillis(uri, LanceTestTables.latestVersion(uri)));
        Thread.sleep(500);
      }
    }
    Map<Long, Long> arrivals = FIRST_ARRIVAL.computeIfAbsent(token, t -> new ConcurrentHashMap<>());
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (arrivals.size() < versions && System.nanoTime() < deadline) {
      failIfEnded(job, token);
      Thread.sleep(50);
    }
    job.cancel().get();
    List<Long> latencies = new ArrayList<>();
    for (int version = 0; version < versions; version++) {
      Long arrival = arrivals.get((long) version * 100);
      if (arrival != null) {
        latencies.add(arrival - commits.get(version));
      }
    }
    Collections.sort(latencies);
    System.out.printf(
        "  freshness at scan.discovery-interval %s, %d versions of 100 rows every 500 ms:"
            + " median %d ms, p90 %d ms, max %d ms (%d of %d versions arrived)%n",
        interval.toMillis() >= 1000 ? interval.toSeconds() + " s" : interval.toMillis() + " ms",
        versions,
        latencies.get(latencies.size() / 2),
        latencies.get(latencies.size() * 9 / 10),
        latencies.get(latencies.size() - 1),
        latencies.size(),
        versions);
  }

  /** The benchmark's rows 0..rows-1 in {@code count} versions (an empty table for 0 rows). */
  private static void writeInVersions(String uri, int rows, int count) throws Exception {
    TableRef table = new TableRef(uri, Map.of());
    try (BufferAllocator allocator = new RootAllocator()) {
      if (LanceTestTables.hasVersion(uri)) {
        if (rows == 0 || LanceTestTables.countRows(uri) == rows) {
          return;
        }
        throw new IllegalStateException(uri + " exists with another row count; remove it");
      }
      table.createIfAbsent(allocator, BenchRows.ARROW_SCHEMA, false, null).orElseThrow().close();
      int perVersion = rows / count;
      for (int start = 0; start < rows; start += perVersion) {
        LanceTestTables.appendFragments(
            uri,
            ReadBenchmark.writeFragment(uri, allocator, start, Math.min(rows, start + perVersion)));
      }
    }
  }

  /**
   * Counts the rows; notes when the {@code target}-th passed, and (fresh) when the first row of
   * each version (an id divisible by 100) arrived.
   */
  private static final class Count implements MapFunction<RowData, RowData> {
    private static final long serialVersionUID = 1L;
    private final String token;
    private final long target;
    private final boolean fresh;

    Count(String token, long target, boolean fresh) {
      this.token = token;
      this.target = target;
      this.fresh = fresh;
    }

    @Override
    public RowData map(RowData row) {
      if (COUNTS.computeIfAbsent(token, t -> new AtomicLong()).incrementAndGet() == target) {
        DONE_AT.put(token, System.nanoTime());
      }
      if (fresh && row.getLong(0) % 100 == 0) {
        FIRST_ARRIVAL
            .computeIfAbsent(token, t -> new ConcurrentHashMap<>())
            .putIfAbsent(row.getLong(0), System.currentTimeMillis());
      }
      return row;
    }
  }
}
