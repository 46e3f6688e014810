package dev.flinklance.table.bench;

import dev.flinklance.access.TableRef;
import dev.flinklance.table.lookup.LanceScalarIndex;
import dev.flinklance.testing.TableMetrics;
import dev.flinklance.testing.TestTables;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.RowType;

/**
 * Lookups per second of a lookup join against a Lance table, in each cache mode, sync and async,
 * with and without a BTree index on the key; prints, asserts nothing.
 *
 * <p>Data: a feature table of {@code rows} users ({@code id BIGINT, tier STRING, score DOUBLE,
 * embedding ARRAY<FLOAT>} of 16 floats) in fragments of 100,000 rows, written twice: with a BTree
 * index on {@code id} and without. The stream: {@code records} rows of datagen with a user id, 9 in
 * 10 of them one of 10,000 hot users and the rest any user (so that a cache has something to
 * cache), joined with {@code JOIN users FOR SYSTEM_TIME AS OF s.proc_time ON s.user_id = u.id} into
 * a blackhole sink at parallelism 1, in streaming mode. The slow configurations run on a fraction
 * of the records (printed); rates are per second either way. The same job without the join is timed
 * as the fixed cost of a job; net lookups/s take it off.
 *
 * <p>For each run: the share of the lookups that went to Lance (the tasks' {@code lookupKeys}
 * metric over the records: the misses, with a PARTIAL cache), Lance queries per lookup ({@code
 * lookupQueries} over the records: below 1 where the async function batches keys into one query).
 * The FULL run's time includes loading the cache, which a job of one record measures on its own
 * (fixed cost included). The heap a FULL cache holds is measured in a job of its own, whose stream
 * is paced so that it runs on after the load: the most heap the JVM holds while it runs beyond the
 * heap before, sampled after a GC every 500 ms (an estimate; the GCs would slow a timed job).
 *
 * <p>After a warm-up round, {@code repetitions} rounds run every measurement in turn; the median of
 * each is printed. Usage: {@code LookupBenchmark [rows=1000000] [records=200000] [repetitions=1]
 * [table-dir]} (tables left in table-dir by an earlier run are reused).
 */
public final class LookupBenchmark {
  private static final int DIMENSION = 16;
  private static final int ROWS_PER_FRAGMENT = 100_000;
  private static final int HOT_USERS = 10_000;
  private static final String FULL = "'lookup.cache' = 'FULL'";
  private static final String FIXED_COST = "no join (fixed cost)";
  private static final String FULL_LOAD = "FULL cache load";

  /** The paced stream of the heap measurement: 10 s of lookups after the cache has loaded. */
  private static final long HEAP_RECORDS = 2_000;

  private static final long HEAP_RECORDS_PER_SECOND = 200;
  private static final RowType USERS =
      (RowType)
          DataTypes.ROW(
                  DataTypes.FIELD("id", DataTypes.BIGINT().notNull()),
                  DataTypes.FIELD("tier", DataTypes.STRING()),
                  DataTypes.FIELD("score", DataTypes.DOUBLE()),
                  DataTypes.FIELD("embedding", DataTypes.ARRAY(DataTypes.FLOAT().notNull())))
              .getLogicalType();

  private static final InMemoryReporter REPORTER = InMemoryReporter.createWithRetainedMetrics();

  /** One configuration: the table, its lookup options, and the share of the records it runs. */
  private record Run(String name, boolean indexed, String options, int divisor) {}

  private LookupBenchmark() {}

  public static void main(String[] args) throws Exception {
    long rows = args.length > 0 ? Long.parseLong(args[0]) : 1_000_000;
    long records = args.length > 1 ? Long.parseLong(args[1]) : 200_000;
    int repetitions = args.length > 2 ? Integer.parseInt(args[2]) : 1;
    Path dir = args.length > 3 ? Path.of(args[3]) : Files.createTempDirectory("lance-lookup-bench");
    String indexed = ensureTable(dir, rows, true);
    String plain = ensureTable(dir, rows, false);
    String partial =
        "'lookup.cache' = 'PARTIAL', 'lookup.partial-cache.max-rows' = '" + 2 * HOT_USERS + "'";
    List<Run> runs =
        List.of(
            new Run("NONE, sync, index", true, "", 20),
            new Run("NONE, sync, no index", false, "", 200),
            new Run("NONE, async, index", true, "'lookup.async' = 'true'", 1),
            new Run("NONE, async, no index", false, "'lookup.async' = 'true'", 10),
            new Run("PARTIAL, sync, index", true, partial, 2),
            new Run("PARTIAL, sync, no index", false, partial, 20),
            new Run("PARTIAL, async, index", true, partial + ", 'lookup.async' = 'true'", 1),
            new Run("FULL", true, FULL, 1));

    BenchCluster.run(
        REPORTER.addToConfiguration(new Configuration()),
        () -> {
          System.out.printf(
              "flink-lance lookup join benchmark: %,d users (%d fragments), %,d stream records"
                  + " (9 in 10 on %,d hot users), parallelism 1, %d repetitions, median"
                  + " reported, %d processors%n",
              rows,
              (rows + ROWS_PER_FRAGMENT - 1) / ROWS_PER_FRAGMENT,
              records,
              HOT_USERS,
              repetitions,
              Runtime.getRuntime().availableProcessors());
          Map<String, Rounds.Measurement> measurements = new LinkedHashMap<>();
          Map<String, double[]> counts = new LinkedHashMap<>();
          measurements.put(FIXED_COST, () -> job(indexed, records, rows, null, new double[2]));
          measurements.put(FULL_LOAD, () -> job(indexed, 1, rows, FULL, new double[2]));
          for (Run run : runs) {
            double[] count = counts.computeIfAbsent(run.name(), k -> new double[2]);
            measurements.put(
                run.name(),
                () ->
                    job(
                        run.indexed() ? indexed : plain,
                        records / run.divisor(),
                        rows,
                        run.options(),
                        count));
          }
          Map<String, Double> seconds = Rounds.medians(measurements, repetitions);
          double fixedPerRecord = seconds.get(FIXED_COST) / records;
          System.out.printf(
              "  %-26s %9s %11s %15s %11s %15s%n",
              "", "records", "lookups/s", "net lookups/s", "to Lance", "queries/lookup");
          for (Run run : runs) {
            long n = records / run.divisor();
            double time = seconds.get(run.name());
            double[] count = counts.get(run.name());
            System.out.printf(
                "  %-26s %,9d %,11.0f %,15.0f %11s %15s%n",
                run.name(),
                n,
                n / time,
                n / Math.max(1e-9, time - fixedPerRecord * n),
                count[1] == 0 ? "-" : String.format("%.4f", count[1] / n),
                count[1] == 0 ? "-" : String.format("%.4f", count[0] / n));
          }
          System.out.printf(
              "  fixed cost of a job: %.1f s for %,d records%n", seconds.get(FIXED_COST), records);
          // no rate after the load: on a loaded machine the load alone may take longer than the
          // FULL run, load included
          System.out.printf(
              "  FULL: cache load %.1f s (a job of 1 record), cache heap %,.0f MB%n",
              seconds.get(FULL_LOAD), fullCacheHeap(indexed, rows) / (double) (1 << 20));
        });
  }

  /** The table of {@code rows} users, written once per directory. */
  private static String ensureTable(Path dir, long rows, boolean indexed) {
    String uri =
        dir.resolve("users-" + rows + (indexed ? "-indexed" : "") + ".lance")
            .toAbsolutePath()
            .toString();
    if (Files.exists(Path.of(uri))) {
      return uri;
    }
    TestTables.create(uri, USERS, Map.of("embedding", DIMENSION));
    for (long first = 0; first < rows; first += ROWS_PER_FRAGMENT) {
      List<RowData> chunk = new ArrayList<>();
      for (long id = first; id < Math.min(rows, first + ROWS_PER_FRAGMENT); id++) {
        chunk.add(user(id));
      }
      TestTables.append(uri, USERS, chunk, ROWS_PER_FRAGMENT);
    }
    if (indexed) {
      System.out.println(LanceScalarIndex.create(new TableRef(uri, Map.of()), "id"));
    }
    return uri;
  }

  private static RowData user(long id) {
    Float[] embedding = new Float[DIMENSION];
    for (int i = 0; i < DIMENSION; i++) {
      embedding[i] = (float) ((id * 31 + i) % 1000) / 1000f;
    }
    return GenericRowData.of(
        id, StringData.fromString("tier-" + id % 5), id * 0.5, new GenericArrayData(embedding));
  }

  /**
   * Runs the stream through the join (or without one when {@code options} is null) and returns its
   * seconds; puts the run's Lance queries and keys looked up into {@code counts}.
   */
  private static double job(String users, long records, long rows, String options, double[] counts)
      throws Exception {
    TableEnvironment env = tables(users, records, rows, 1_000_000_000);
    long start = System.nanoTime();
    TableResult result = env.executeSql(insert(options));
    result.await();
    double seconds = (System.nanoTime() - start) / 1e9;
    JobID job = result.getJobClient().orElseThrow().getJobID();
    TableMetrics lookups = TableMetrics.of(REPORTER, job, users);
    counts[0] = lookups.count("lookupQueries");
    counts[1] = lookups.count("lookupKeys");
    return seconds;
  }

  /** The bytes of heap a FULL cache of {@code users} holds (an estimate, see the class comment). */
  private static long fullCacheHeap(String users, long rows) throws Exception {
    TableEnvironment env = tables(users, HEAP_RECORDS, rows, HEAP_RECORDS_PER_SECOND);
    long before = usedHeap();
    AtomicLong most = new AtomicLong();
    TableResult result = env.executeSql(insert(FULL));
    Thread sampler = sampleHeap(most);
    result.await();
    sampler.interrupt();
    sampler.join();
    return Math.max(0, most.get() - before);
  }

  /** The users table, the stream of {@code records} at most {@code perSecond}, the sink. */
  private static TableEnvironment tables(String users, long records, long rows, long perSecond) {
    TableEnvironment env = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
    env.getConfig().set("table.exec.resource.default-parallelism", "1");
    env.executeSql(
        "CREATE TEMPORARY TABLE users (id BIGINT NOT NULL, tier STRING, score DOUBLE, embedding"
            + " ARRAY<FLOAT NOT NULL>) WITH ('connector' = 'lance', 'path' = '"
            + users
            + "')");
    env.executeSql(
        String.format(
            "CREATE TEMPORARY TABLE records (k BIGINT, r INT, proc_time AS PROCTIME()) WITH"
                + " ('connector' = 'datagen', 'number-of-rows' = '%d', 'rows-per-second' = '%d',"
                + " 'fields.k.min' = '0', 'fields.k.max' = '%d', 'fields.r.min' = '0',"
                + " 'fields.r.max' = '9')",
            records, perSecond, rows - 1));
    env.executeSql(
        "CREATE TEMPORARY VIEW events AS SELECT CASE WHEN r < 9 THEN MOD(k, "
            + HOT_USERS
            + ") ELSE k END AS user_id, proc_time FROM records");
    env.executeSql(
        "CREATE TEMPORARY TABLE sink (user_id BIGINT, tier STRING, score DOUBLE, embedding"
            + " ARRAY<FLOAT NOT NULL>) WITH ('connector' = 'blackhole')");
    return env;
  }

  /** The stream through the join with {@code options} into the sink, or without it if null. */
  private static String insert(String options) {
    return options == null
        ? "INSERT INTO sink SELECT user_id, 'x', 0.0, CAST(NULL AS ARRAY<FLOAT NOT NULL>) FROM"
            + " events"
        : "INSERT INTO sink SELECT s.user_id, u.tier, u.score, u.embedding FROM events AS s"
            + " JOIN users "
            + (options.isEmpty() ? "" : "/*+ OPTIONS(" + options + ") */ ")
            + "FOR SYSTEM_TIME AS OF s.proc_time AS u ON s.user_id = u.id";
  }

  private static long usedHeap() {
    System.gc();
    Runtime runtime = Runtime.getRuntime();
    return runtime.totalMemory() - runtime.freeMemory();
  }

  private static Thread sampleHeap(AtomicLong max) {
    Thread sampler =
        new Thread(
            () -> {
              try {
                while (true) {
                  max.accumulateAndGet(usedHeap(), Math::max);
                  Thread.sleep(500);
                }
              } catch (InterruptedException e) {
                // the job ended
              }
            },
            "heap-sampler");
    sampler.setDaemon(true);
    sampler.start();
    return sampler;
  }
}
