package dev.flinklance.sink.bench;

import dev.flinklance.key.PrimaryKey;
import dev.flinklance.key.RowKey;
import dev.flinklance.testing.Spread;
import dev.flinklance.testing.TestRows;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.function.IntPredicate;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;

/**
 * The Java half of an upsert commit's key scan: matching every scanned value of a BIGINT key column
 * against a checkpoint's changed keys, with the lookup's matcher ({@link PrimaryKey#matcher})
 * against the baseline of a {@code HashSet<Long>} of boxed values (what the matcher did before).
 * Batches of 8,192 rows as Lance's scanner hands them; rounds interleaved. Prints, asserts nothing.
 *
 * <p>Usage: {@code bin/lib/run-sink-benchmark KeyMatchBenchmark [rows=10000000] [keys=10000]
 * [rounds=7]}
 */
public final class KeyMatchBenchmark {
  private static final PrimaryKey KEY = PrimaryKey.of(TestRows.ROW_TYPE, List.of("id"), "bench");
  private static final int BATCH = 8_192;

  public static void main(String[] args) {
    int rows = args.length > 0 ? Integer.parseInt(args[0]) : 10_000_000;
    int keys = args.length > 1 ? Integer.parseInt(args[1]) : 10_000;
    int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 7;
    long[] keyIds = new Random(42).longs(keys, 0, rows).toArray();
    List<RowKey> changed =
        Arrays.stream(keyIds)
            .mapToObj(id -> KEY.keyOf(GenericRowData.of(id, StringData.fromString(""))))
            .toList();
    Set<Long> boxed = new HashSet<>();
    Arrays.stream(keyIds).forEach(boxed::add);
    try (BufferAllocator allocator = new RootAllocator()) {
      List<VectorSchemaRoot> batches = new ArrayList<>();
      for (int done = 0; done < rows; done += BATCH) {
        BigIntVector ids = new BigIntVector("id", allocator);
        int count = Math.min(BATCH, rows - done);
        ids.allocateNew(count);
        for (int i = 0; i < count; i++) {
          ids.set(i, done + i);
        }
        ids.setValueCount(count);
        batches.add(VectorSchemaRoot.of(ids));
      }
      Spread matcher = new Spread();
      Spread baseline = new Spread();
      for (int round = 0; round < rounds; round++) {
        long start = System.nanoTime();
        long byMatcher = byMatcher(batches, KEY.matcher(changed));
        matcher.add((System.nanoTime() - start) / 1e6);
        start = System.nanoTime();
        long byBoxed = byBoxedPredicate(batches, boxed);
        baseline.add((System.nanoTime() - start) / 1e6);
        if (byMatcher != byBoxed) {
          throw new IllegalStateException("the two disagree: " + byMatcher + " vs " + byBoxed);
        }
      }
      batches.forEach(VectorSchemaRoot::close);
      System.out.printf(
          "%,d scanned values against %,d keys, %d rounds interleaved; ms median (min-max)%n",
          rows, keys, rounds);
      System.out.printf("  matcher             %s%n", matcher.format("%.0f"));
      System.out.printf("  boxed, per row     %s%n", baseline.format("%.0f"));
      System.out.printf("  matcher / boxed     %s%n", matcher.ratioTo(baseline).format("%.2f"));
    }
  }

  private static long byMatcher(List<VectorSchemaRoot> batches, PrimaryKey.KeyMatcher matcher) {
    long[] matches = {0};
    for (VectorSchemaRoot batch : batches) {
      matcher.match(batch, row -> matches[0]++);
    }
    return matches[0];
  }

  /** The matcher as it was: a predicate per batch, called per row, over boxed values. */
  private static long byBoxedPredicate(List<VectorSchemaRoot> batches, Set<Long> boxed) {
    long matches = 0;
    for (VectorSchemaRoot batch : batches) {
      BigIntVector ids = (BigIntVector) batch.getVector(0);
      IntPredicate wanted = row -> !ids.isNull(row) && boxed.contains(ids.get(row));
      for (int row = 0; row < batch.getRowCount(); row++) {
        if (wanted.test(row)) {
          matches++;
        }
      }
    }
    return matches;
  }
}
