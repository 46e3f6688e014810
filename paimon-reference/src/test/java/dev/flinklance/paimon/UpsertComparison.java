package dev.flinklance.paimon;

import dev.flinklance.testing.Spread;
import dev.flinklance.testing.TestFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Benchmark: the same changelog ({@link Changes}: an initial load of N rows, then C changes, 8 in
 * 10 updates, 1 in 10 inserts, 1 in 10 deletes over random keys) into a primary-key table of the
 * 'lance' SQL connector and into Paimon primary-key tables (2 buckets, Paimon's defaults; and with
 * deletion vectors), each through Flink SQL ({@code INSERT INTO t SELECT * FROM changes}, the
 * changes an upsert changelog from one source subtask), parallelism 2, a checkpoint every second on
 * both. Per side and round ({@link UpsertRun}): changes/s of the changes' job (its whole runtime),
 * rows/s of the load's job, bytes on disk of the table after both, the seconds of {@code SELECT
 * COUNT(*)} and of {@code SELECT SUM(score)} through its SQL source (batch, parallelism 2), and its
 * rows compared with a Java replay of the changelog. The sides take turns round by round (each goes
 * first once in three rounds), after a warm-up run of each on a twentieth of the rows and changes.
 * Prints median (min-max) over the rounds and the ratios Lance / Paimon round by round. Asserts no
 * time; exits with 1 if a table differs from the replay.
 *
 * <p>Arguments: rows (1,000,000), changes (1,000,000), rounds (3), checkpoint interval in ms
 * (1,000), seed (42).
 */
public final class UpsertComparison {
  /** What was measured of one side over the rounds. */
  private static final class Measured {
    final Spread loadRowsPerSecond = new Spread();
    final Spread changesPerSecond = new Spread();
    final Spread megabytes = new Spread();
    final Spread countSeconds = new Spread();
    final Spread sumSeconds = new Spread();

    void add(Changes changes, UpsertRun.Result result) {
      loadRowsPerSecond.add(changes.rows / result.loadSeconds());
      changesPerSecond.add(changes.changes / result.changeSeconds());
      megabytes.add(result.bytes() / 1e6);
      countSeconds.add(result.countSeconds());
      sumSeconds.add(result.sumSeconds());
    }
  }

  private UpsertComparison() {}

  /** The compared tables, each in a directory of its own under {@code dir}: Lance first. */
  static List<SqlTable> tables(Path dir) {
    return List.of(
        SqlTable.lance("Lance", dir.resolve("lance").resolve("t.lance"), Changes.COLUMNS),
        SqlTable.paimon("Paimon", dir.resolve("paimon"), Changes.COLUMNS, Map.of()),
        SqlTable.paimon(
            "Paimon, deletion vectors",
            dir.resolve("paimon-dv"),
            Changes.COLUMNS,
            Map.of("deletion-vectors.enabled", "true")));
  }

  public static void main(String[] args) throws Exception {
    long rows = args.length > 0 ? Long.parseLong(args[0]) : 1_000_000;
    long changeCount = args.length > 1 ? Long.parseLong(args[1]) : 1_000_000;
    int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 3;
    long checkpointMillis = args.length > 3 ? Long.parseLong(args[3]) : 1_000;
    long seed = args.length > 4 ? Long.parseLong(args[4]) : 42;
    Changes changes = new Changes(seed, rows, changeCount);
    Path work = Files.createTempDirectory("paimon-reference-upsert");
    List<String> failures = new ArrayList<>();
    try {
      Sessions.onCluster(
          () -> {
            System.out.printf(
                "Upserts, 'lance' SQL connector vs Paimon primary-key tables (2 buckets): %,d rows"
                    + " loaded, then %,d changes (8/10 updates, 1/10 inserts, 1/10 deletes, seed"
                    + " %d); rows (id BIGINT key, payload STRING of %d characters, score DOUBLE,"
                    + " qty INT); parallelism %d, checkpoint every %d ms; %d rounds, interleaved,"
                    + " after a warm-up; median (min-max); %d processors, Java %s%n",
                rows,
                changeCount,
                seed,
                Changes.PAYLOAD_LENGTH,
                Sessions.PARALLELISM,
                checkpointMillis,
                rounds,
                Runtime.getRuntime().availableProcessors(),
                Runtime.version());
            Changes warmUp =
                new Changes(seed, Math.max(1_000, rows / 20), Math.max(1_000, changeCount / 20));
            Replay warmUpReplay = new Replay(warmUp);
            for (SqlTable table : tables(work.resolve("warm-up"))) {
              check(
                  table,
                  "warm-up",
                  UpsertRun.run(table, warmUp, warmUpReplay, checkpointMillis),
                  failures);
            }
            TestFiles.deleteRecursively(work.resolve("warm-up"));
            Replay replay = new Replay(changes);
            int sides = tables(work).size();
            List<Measured> measured = new ArrayList<>();
            for (int s = 0; s < sides; s++) {
              measured.add(new Measured());
            }
            for (int round = 0; round < rounds; round++) {
              for (int k = 0; k < sides; k++) {
                int s = (round + k) % sides; // each side goes first once every `sides` rounds
                Path dir = work.resolve("round-" + round + "-" + s);
                SqlTable table = tables(dir).get(s);
                UpsertRun.Result result = UpsertRun.run(table, changes, replay, checkpointMillis);
                check(table, "round " + (round + 1), result, failures);
                measured.get(s).add(changes, result);
                TestFiles.deleteRecursively(dir);
              }
            }
            print(tables(work), measured, failures.isEmpty());
          });
    } finally {
      TestFiles.deleteRecursively(work);
    }
    if (!failures.isEmpty()) {
      failures.forEach(f -> System.out.println("DIFFERS FROM THE REPLAY: " + f));
      System.exit(1);
    }
  }

  private static void check(
      SqlTable table, String run, UpsertRun.Result result, List<String> failures) {
    if (result.difference() != null) {
      failures.add(table.label + ", " + run + ": " + result.difference());
    }
  }

  private static void print(List<SqlTable> tables, List<Measured> measured, boolean equal) {
    String row = "  %-34s %-28s %-28s %-22s %-20s %-20s%n";
    System.out.printf(
        row, "table", "changes/s", "load rows/s", "MB on disk", "COUNT(*) s", "SUM(score) s");
    for (int s = 0; s < tables.size(); s++) {
      Measured m = measured.get(s);
      System.out.printf(
          row,
          tables.get(s).label,
          m.changesPerSecond.format("%,.0f"),
          m.loadRowsPerSecond.format("%,.0f"),
          m.megabytes.format("%.1f"),
          m.countSeconds.format("%.2f"),
          m.sumSeconds.format("%.2f"));
    }
    Measured lance = measured.get(0);
    for (int s = 1; s < tables.size(); s++) {
      Measured other = measured.get(s);
      System.out.printf(
          row,
          "Lance / " + tables.get(s).label,
          lance.changesPerSecond.ratioTo(other.changesPerSecond).format("%.2f"),
          lance.loadRowsPerSecond.ratioTo(other.loadRowsPerSecond).format("%.2f"),
          lance.megabytes.ratioTo(other.megabytes).format("%.2f"),
          lance.countSeconds.ratioTo(other.countSeconds).format("%.2f"),
          lance.sumSeconds.ratioTo(other.sumSeconds).format("%.2f"));
    }
    System.out.println(
        "  every table equal to the replay of the changelog, row by row: "
            + (equal ? "yes" : "NO"));
  }
}
