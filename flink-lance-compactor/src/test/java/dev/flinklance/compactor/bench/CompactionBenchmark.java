package dev.flinklance.compactor.bench;

import dev.flinklance.compactor.LanceCompactionJob;
import dev.flinklance.compactor.lineage.RowIdMetaJson;
import dev.flinklance.compactor.testing.LineageTables;
import dev.flinklance.sink.LanceSink;
import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.TestFragments;
import dev.flinklance.testing.TestRows;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.LongSupplier;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.lance.CommitBuilder;
import org.lance.Dataset;
import org.lance.Fragment;
import org.lance.FragmentMetadata;
import org.lance.Transaction;
import org.lance.fragment.VersionMeta;
import org.lance.operation.Append;

/**
 * Row-lineage spill off vs on, and the sink's commit cost after 1,000 checkpoints with and without
 * {@code compaction.enabled}. Prints; asserts nothing. Run with {@code bin/bench-compaction}.
 *
 * <p>Arguments: {@code [rows per fragment = 1000000] [fragments = 8] [checkpoints = 1000]}.
 */
public final class CompactionBenchmark {
  private static final int REPETITIONS = 5;
  private static final int UPDATE_ROUNDS = 3;
  private static final double UPDATE_SHARE = 0.10;

  private CompactionBenchmark() {}

  public static void main(String[] args) throws Exception {
    long rowsPerFragment = args.length > 0 ? Long.parseLong(args[0]) : 1_000_000;
    int fragments = args.length > 1 ? Integer.parseInt(args[1]) : 8;
    int checkpoints = args.length > 2 ? Integer.parseInt(args[2]) : 1_000;
    Path dir = Files.createTempDirectory("lance-compaction-bench");
    try {
      lineageSpill(dir, rowsPerFragment, fragments);
      committerAfterCheckpoints(dir, checkpoints);
    } finally {
      BenchFiles.delete(dir);
    }
  }

  private static void lineageSpill(Path dir, long rowsPerFragment, int fragments) throws Exception {
    long rows = rowsPerFragment * fragments;
    System.out.printf(
        "Row-lineage spill: stable-row-id table of %d fragments x %,d rows; %d merge-insert"
            + " rounds each updating %.0f%% of the rows in random order; every 20th row"
            + " deleted; then compacted by LanceCompactionJob --once with spill off and on%n",
        fragments, rowsPerFragment, UPDATE_ROUNDS, UPDATE_SHARE * 100);
    String inline = dir.resolve("inline.lance").toString();
    long start = System.nanoTime();
    LineageTables.createStable(inline);
    LineageTables.append(inline, 0, rows, fragments);
    Random random = new Random(1);
    for (int round = 0; round < UPDATE_ROUNDS; round++) {
      List<Long> ids = new ArrayList<>();
      for (long id = 0; id < rows; id++) {
        if (random.nextDouble() < UPDATE_SHARE) {
          ids.add(id);
        }
      }
      Collections.shuffle(ids, random);
      LineageTables.update(inline, ids);
    }
    LineageTables.delete(inline, "id % 20 = 7");
    System.out.printf("  table built in %.0f s%n", (System.nanoTime() - start) / 1e9);
    String spilled = dir.resolve("spilled.lance").toString();
    BenchFiles.copy(Path.of(inline), Path.of(spilled));
    LineageTables.setConfig(spilled, Map.of("lance.row_lineage.spill", "true"));

    Arm off = compactAndMeasure(inline, rowsPerFragment, rows);
    Arm on = compactAndMeasure(spilled, rowsPerFragment, rows);
    double[] appendMs = interleavedAppendCommitMs(inline, spilled, REPETITIONS);
    System.out.printf("  %-38s %14s %14s %8s%n", "", "spill off", "spill on", "on/off");
    row("manifest bytes after compaction", off.manifestBytes, on.manifestBytes);
    row("manifest bytes after the next append", off.nextManifestBytes, on.nextManifestBytes);
    row("  row-id bytes inline", off.rowIdBytes, on.rowIdBytes);
    row("  created-at bytes inline", off.createdAtBytes, on.createdAtBytes);
    row("  last-updated-at bytes inline", off.updatedAtBytes, on.updatedAtBytes);
    row("side-file bytes", off.sideFileBytes, on.sideFileBytes);
    row("compaction pass (ms)", off.compactionMs, on.compactionMs);
    row("next append commit, mean of 5 (ms)", appendMs[0], appendMs[1]);
    row("cold open + count, mean of 5 (ms)", off.openCountMs, on.openCountMs);
    row("take 1,000 random row ids, cold, mean of 5 (ms)", off.takeMs, on.takeMs);
    row("take 1,000 random row ids, warm, mean of 5 (ms)", off.warmTakeMs, on.warmTakeMs);
    System.out.printf(
        "  with spill on, created-at + last-updated-at (inline by design on lance-core 7.0.0)"
            + " are %.0f%% of the manifest after the next append%n",
        100.0 * (on.createdAtBytes + on.updatedAtBytes) / on.nextManifestBytes);
  }

  private record Arm(
      double manifestBytes,
      double nextManifestBytes,
      double rowIdBytes,
      double createdAtBytes,
      double updatedAtBytes,
      double sideFileBytes,
      double compactionMs,
      double openCountMs,
      double takeMs,
      double warmTakeMs) {}

  /**
   * @param rows the table was appended with ids 0..rows-1 in order, so row ids equal ids; updates
   *     keep row ids, and ids with {@code id % 20 == 7} are deleted. (A {@code _rowid} scan to find
   *     them took minutes on the 8M-row table.)
   */
  private static Arm compactAndMeasure(String uri, long targetRows, long rows) throws Exception {
    long start = System.nanoTime();
    LanceCompactionJob.main(
        new String[] {"--path", uri, "--once", "--target-rows-per-fragment", "" + targetRows});
    double compactionMs = (System.nanoTime() - start) / 1e6;
    long rowIdBytes = 0;
    long createdAt = 0;
    long updatedAt = 0;
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = Dataset.open().allocator(allocator).uri(uri).build()) {
      for (Fragment fragment : dataset.getFragments()) {
        FragmentMetadata metadata = fragment.metadata();
        rowIdBytes += RowIdMetaJson.inlineSize(metadata.getRowIdMeta());
        createdAt += inlineSize(metadata.getCreatedAtVersionMeta());
        updatedAt += inlineSize(metadata.getLastUpdatedAtVersionMeta());
      }
    }
    long sideFileBytes = 0;
    for (String file : LineageTables.sideFiles(uri)) {
      sideFileBytes += Files.size(Path.of(uri).resolve(file));
    }
    long manifest = LineageTables.manifestBytes(uri);
    appendCommitMs(uri, 1); // the next append's manifest no longer holds the rewrite
    long nextManifest = LineageTables.manifestBytes(uri);
    double openCount =
        meanMs(
            () -> {
              try (BufferAllocator allocator = new RootAllocator();
                  Dataset dataset = Dataset.open().allocator(allocator).uri(uri).build()) {
                return dataset.countRows();
              }
            });
    Random random = new Random(3);
    double take =
        meanMs(
            () -> {
              List<Long> sample = randomRowIds(random, rows);
              long taken;
              try (BufferAllocator allocator = new RootAllocator();
                  Dataset dataset = Dataset.open().allocator(allocator).uri(uri).build()) {
                taken = takeCount(dataset, sample);
              }
              if (taken != sample.size()) {
                throw new IllegalStateException("took " + taken + " of " + sample.size() + " rows");
              }
              return taken;
            });
    double warmTake;
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = Dataset.open().allocator(allocator).uri(uri).build()) {
      warmTake = meanMs(() -> takeCount(dataset, randomRowIds(random, rows)));
    }
    return new Arm(
        manifest,
        nextManifest,
        rowIdBytes,
        createdAt,
        updatedAt,
        sideFileBytes,
        compactionMs,
        openCount,
        take,
        warmTake);
  }

  /** Size of an inline version sequence ({"inline":[..]}), 0 if absent. */
  private static long inlineSize(VersionMeta meta) {
    if (meta == null || !meta.getMetadata().startsWith("{\"inline\":[")) {
      return 0;
    }
    String json = meta.getMetadata();
    return json.chars().filter(c -> c == ',').count() + (json.contains("[]") ? 0 : 1);
  }

  /**
   * Mean times of {@code count} Append commits on each of two tables, alternating between them so
   * that load changes on a shared machine hit both alike.
   */
  private static double[] interleavedAppendCommitMs(String first, String second, int count) {
    double[] total = new double[2];
    for (int i = 0; i < count; i++) {
      total[0] += appendCommitMs(first, 1);
      total[1] += appendCommitMs(second, 1);
    }
    return new double[] {total[0] / count, total[1] / count};
  }

  /** Mean time of the next {@code count} Append commits of a 10-row fragment (writing excluded). */
  private static double appendCommitMs(String uri, int count) {
    double total = 0;
    for (int i = 0; i < count; i++) {
      List<FragmentMetadata> fragment =
          TestFragments.write(uri, idsFrom(10_000_000_000L + i * 10L, 10));
      try (BufferAllocator allocator = new RootAllocator();
          Dataset dataset = Dataset.open().allocator(allocator).uri(uri).build();
          Transaction append =
              new Transaction.Builder()
                  .readVersion(dataset.version())
                  .operation(Append.builder().fragments(fragment).build())
                  .build()) {
        long start = System.nanoTime();
        try (Dataset ignored = new CommitBuilder(dataset).execute(append)) {
          total += (System.nanoTime() - start) / 1e6;
        }
      }
    }
    return total / count;
  }

  private static long[] idsFrom(long from, int count) {
    long[] ids = new long[count];
    for (int i = 0; i < count; i++) {
      ids[i] = from + i;
    }
    return ids;
  }

  /** 1,000 row ids of live rows (see compactAndMeasure). */
  private static List<Long> randomRowIds(Random random, long rows) {
    List<Long> sample = new ArrayList<>();
    while (sample.size() < 1_000) {
      long rowId = (long) (random.nextDouble() * rows);
      if (rowId % 20 != 7) {
        sample.add(rowId);
      }
    }
    return sample;
  }

  private static long takeCount(Dataset dataset, List<Long> rowIds) {
    long count = 0;
    try (ArrowReader reader = dataset.takeRows(rowIds, List.of("id"))) {
      while (reader.loadNextBatch()) {
        count += reader.getVectorSchemaRoot().getRowCount();
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return count;
  }

  private static double meanMs(LongSupplier action) {
    action.getAsLong(); // warm-up
    long start = System.nanoTime();
    for (int i = 0; i < REPETITIONS; i++) {
      action.getAsLong();
    }
    return (System.nanoTime() - start) / 1e6 / REPETITIONS;
  }

  private static void committerAfterCheckpoints(Path dir, int checkpoints) throws Exception {
    System.out.printf(
        "Sink commits after %,d checkpoints (parallelism 2, one small fragment per writer per"
            + " checkpoint), compaction.enabled off vs on:%n",
        checkpoints);
    String plain = dir.resolve("sink-plain.lance").toString();
    String compacted = dir.resolve("sink-compacted.lance").toString();
    double plainSeconds = ingest(plain, checkpoints, Map.of());
    double compactedSeconds = ingest(compacted, checkpoints, Map.of("compaction.enabled", "true"));
    String lazy = dir.resolve("sink-compacted-64.lance").toString();
    double lazySeconds =
        ingest(
            lazy,
            checkpoints,
            Map.of("compaction.enabled", "true", "compaction.trigger.small-fragments", "64"));
    double[] commitMs = interleavedAppendCommitMs(plain, compacted, 20);
    double plainMs = commitMs[0];
    double compactedMs = commitMs[1];
    System.out.printf("  %-38s %14s %14s %8s%n", "", "off", "on", "on/off");
    row(
        "fragments",
        LanceTestTables.fragmentCount(plain),
        LanceTestTables.fragmentCount(compacted));
    row(
        "manifest bytes",
        LineageTables.manifestBytes(plain),
        LineageTables.manifestBytes(compacted));
    row("next commit, mean of 20 (ms)", plainMs, compactedMs);
    row("ingest (s)", plainSeconds, compactedSeconds);
    System.out.printf(
        "  compaction.trigger.small-fragments = 64: ingest %.0f s, %d fragments, next commit %.1f"
            + " ms (mean of 20)%n",
        lazySeconds, LanceTestTables.fragmentCount(lazy), appendCommitMs(lazy, 20));
  }

  /** Returns the job's duration in seconds. */
  private static double ingest(String uri, int checkpoints, Map<String, String> options)
      throws Exception {
    Configuration config = new Configuration();
    StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(2, config);
    env.enableCheckpointing(20);
    long rows = checkpoints * 20L;
    env.fromSource(
            TestRows.source(rows, RateLimiterStrategy.perCheckpoint(20)),
            WatermarkStrategy.noWatermarks(),
            "ids")
        .sinkTo(
            LanceSink.forRowData(TestRows.ROW_TYPE)
                .path(uri)
                .stableRowIds(true)
                .options(options)
                .build());
    long start = System.nanoTime();
    env.execute("ingest " + uri);
    double seconds = (System.nanoTime() - start) / 1e9;
    System.out.printf(
        "  ingest %s: %d sink commits in %.0f s%n",
        options, LanceTestTables.sinkCommits(uri).size(), seconds);
    return seconds;
  }

  private static void row(String name, double off, double on) {
    System.out.printf(
        "  %-38s %,14.1f %,14.1f %8.3f%n", name, off, on, off == 0 ? Double.NaN : on / off);
  }
}
