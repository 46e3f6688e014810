package dev.flinklance.paimon;

import dev.flinklance.testing.Spread;
import dev.flinklance.testing.TestFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Benchmark: lookup joins against the same feature table ({@link Features}: 1M rows of id, tier,
 * score and 16 floats) held by the 'lance' SQL connector and by a Paimon primary-key table (2
 * buckets), each written by one batch SQL job with its defaults, and readied for lookups as its
 * documentation says (Lance: its key's BTree index, which the sink built over no rows before its
 * one commit, brought up to date). The stream: 100,000 records, 9 in 10 on 10,000 hot keys, from
 * one source subtask, joined at parallelism 2 ({@link LookupRun}). Lance: no cache and sync (its
 * default), async, PARTIAL with async, FULL; Paimon: its default (a local lookup store built from
 * the table's files), its FULL cache (RocksDB on local disk) and its MEMORY cache (the whole table
 * on the heap). The slowest, Lance's default, runs on a twentieth of the records. Per configuration
 * and round: lookups/s (records over the job's runtime, deployment included), seconds from the
 * start of its planning to its first joined row (with FULL: the cache's load), lookups/s from the
 * first joined row to the last; every joined row checked against the feature row of its key.
 * Configurations take turns (the order shifts by one each round), after a warm-up on a tenth of the
 * records. Then, once, the heap a cache holds (an untimed job noting the heap after GCs while it
 * joins). Prints median (min-max) over the rounds and each configuration's lookups/s over Paimon's
 * default's round by round. Asserts no time; exits with 1 if a join's rows differ.
 *
 * <p>Arguments: rows (1,000,000), records (100,000), rounds (3), seed (42).
 */
public final class LookupComparison {
  static final int HOT_KEYS = 10_000;
  private static final int PAIMON_DEFAULT = 4;

  /** What was measured of one configuration over the rounds. */
  private static final class Measured {
    final Spread lookupsPerSecond = new Spread();
    final Spread firstRowSeconds = new Spread();
    final Spread afterFirstPerSecond = new Spread();

    void add(long records, LookupRun.Result result) {
      lookupsPerSecond.add(records / result.seconds());
      firstRowSeconds.add(result.firstRowSeconds());
      afterFirstPerSecond.add((records - 1) / Math.max(1e-3, result.afterFirstSeconds()));
    }
  }

  private LookupComparison() {}

  static SqlTable lanceTable(Path dir) {
    return SqlTable.lance("Lance", dir.resolve("features.lance"), Features.COLUMNS);
  }

  static SqlTable paimonTable(Path dir) {
    return SqlTable.paimon("Paimon", dir.resolve("paimon"), Features.COLUMNS, Map.of());
  }

  /** The compared joins; Paimon's default at {@link #PAIMON_DEFAULT}. */
  static List<LookupRun.Arm> arms(SqlTable lance, SqlTable paimon, int slowDivisor) {
    return List.of(
        new LookupRun.Arm("Lance, no cache, sync (default)", lance, "", slowDivisor),
        new LookupRun.Arm("Lance, no cache, async", lance, "'lookup.async' = 'true'", 1),
        new LookupRun.Arm(
            "Lance, PARTIAL, async",
            lance,
            "'lookup.cache' = 'PARTIAL', 'lookup.partial-cache.max-rows' = '"
                + 2 * HOT_KEYS
                + "', 'lookup.async' = 'true'",
            1),
        new LookupRun.Arm("Lance, FULL", lance, "'lookup.cache' = 'FULL'", 1),
        new LookupRun.Arm("Paimon, default (local store)", paimon, "", 1),
        new LookupRun.Arm("Paimon, FULL (RocksDB)", paimon, "'lookup.cache' = 'full'", 1),
        new LookupRun.Arm("Paimon, MEMORY", paimon, "'lookup.cache' = 'memory'", 1));
  }

  public static void main(String[] args) throws Exception {
    long rows = args.length > 0 ? Long.parseLong(args[0]) : 1_000_000;
    long records = args.length > 1 ? Long.parseLong(args[1]) : 100_000;
    int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 3;
    long seed = args.length > 3 ? Long.parseLong(args[3]) : 42;
    Features features = new Features(seed, rows, Math.min(HOT_KEYS, rows));
    Path work = Files.createTempDirectory("paimon-reference-lookup");
    List<String> failures = new ArrayList<>();
    try {
      Sessions.onCluster(
          () -> {
            System.out.printf(
                "Lookup joins, 'lance' SQL connector vs a Paimon primary-key table (2 buckets):"
                    + " %,d feature rows (id BIGINT key, tier STRING, score DOUBLE, embedding of %d"
                    + " floats), %,d stream records (9 in 10 on %,d hot keys, seed %d); join at"
                    + " parallelism %d; %d rounds, interleaved, after a warm-up; median (min-max);"
                    + " %d processors, Java %s%n",
                rows,
                Features.DIMENSION,
                records,
                features.hotKeys,
                seed,
                Sessions.PARALLELISM,
                rounds,
                Runtime.getRuntime().availableProcessors(),
                Runtime.version());
            SqlTable lance = lanceTable(work);
            SqlTable paimon = paimonTable(work);
            for (SqlTable table : List.of(lance, paimon)) {
              double seconds = LookupRun.load(table, features);
              long start = System.nanoTime();
              String ready = table.readyForLookups();
              System.out.printf(
                  "  %s: table written in %.1f s (one batch job), %.0f MB on disk; then %s in %.1f"
                      + " s%n",
                  table.label,
                  seconds,
                  table.bytesOnDisk() / 1e6,
                  ready,
                  (System.nanoTime() - start) / 1e9);
            }
            List<LookupRun.Arm> arms = arms(lance, paimon, 20);
            for (LookupRun.Arm arm : arms) {
              long n = Math.max(1, records / arm.divisor() / 10);
              check(arm, "warm-up", LookupRun.join(arm, features, n), failures);
            }
            List<Measured> measured = new ArrayList<>();
            arms.forEach(arm -> measured.add(new Measured()));
            for (int round = 0; round < rounds; round++) {
              for (int k = 0; k < arms.size(); k++) {
                int a = (round + k) % arms.size(); // the order shifts by one each round
                LookupRun.Arm arm = arms.get(a);
                long n = records / arm.divisor();
                LookupRun.Result result = LookupRun.join(arm, features, n);
                check(arm, "round " + (round + 1), result, failures);
                measured.get(a).add(n, result);
              }
            }
            print(arms, records, measured, failures.isEmpty());
            for (LookupRun.Arm arm : arms.subList(3, arms.size())) {
              System.out.printf(
                  "  %s: heap held while it runs, after GC: %,.0f MB%n",
                  arm.label(), LookupRun.heldHeap(arm, features, records / 5) / 1e6);
            }
          });
    } finally {
      TestFiles.deleteRecursively(work);
    }
    if (!failures.isEmpty()) {
      failures.forEach(f -> System.out.println("WRONG JOINED ROWS: " + f));
      System.exit(1);
    }
  }

  private static void check(
      LookupRun.Arm arm, String run, LookupRun.Result result, List<String> failures) {
    if (result.difference() != null) {
      failures.add(arm.label() + ", " + run + ": " + result.difference());
    }
  }

  private static void print(
      List<LookupRun.Arm> arms, long records, List<Measured> measured, boolean right) {
    String row = "  %-32s %9s %-26s %-22s %-26s %s%n";
    System.out.printf(
        row,
        "join",
        "records",
        "lookups/s",
        "first row after s",
        "lookups/s after 1st row",
        "lookups/s / Paimon default");
    Measured paimon = measured.get(PAIMON_DEFAULT);
    for (int a = 0; a < arms.size(); a++) {
      Measured m = measured.get(a);
      System.out.printf(
          row,
          arms.get(a).label(),
          String.format("%,d", records / arms.get(a).divisor()),
          m.lookupsPerSecond.format("%,.0f"),
          m.firstRowSeconds.format("%.1f"),
          m.afterFirstPerSecond.format("%,.0f"),
          m.lookupsPerSecond.ratioTo(paimon.lookupsPerSecond).format("%.2f"));
    }
    System.out.println(
        "  every joined row equal to the feature row of its key, one per record: "
            + (right ? "yes" : "NO"));
  }
}
