package dev.flinklance.sink.bench;

import dev.flinklance.access.LanceDatasetOptions;
import dev.flinklance.access.VersionMark;
import dev.flinklance.commit.CommitStamp;
import dev.flinklance.index.KeyIndex;
import dev.flinklance.index.KeyLookup;
import dev.flinklance.key.PrimaryKey;
import dev.flinklance.key.RowKey;
import dev.flinklance.sink.LanceSinkConfig;
import dev.flinklance.sink.LanceSinkOptions;
import dev.flinklance.sink.committer.LanceCommittable;
import dev.flinklance.sink.committer.LanceCommitter;
import dev.flinklance.sink.keys.ChangedKeys;
import dev.flinklance.sink.testing.RecordingCommitRequest;
import dev.flinklance.sink.testing.TestCommitterContext;
import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.TestFragments;
import dev.flinklance.testing.TestRows;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.api.connector.sink2.Committer.CommitRequest;
import org.apache.flink.configuration.Configuration;
import org.lance.Dataset;
import org.lance.FragmentMetadata;

/**
 * The cost of an upsert checkpoint's commit against the table's size: tables of N rows (1M-row
 * fragments), then checkpoints of {@code changes} random keys each (90% updated, 10% deleted),
 * committed by the real committer with and without the key index. Prints the commit's duration
 * (lookup, deletion files and the Update; the new fragment is written untimed, as writers do it
 * before the checkpoint completes), and the lookup alone. Asserts nothing.
 *
 * <p>Usage: {@code bin/bench-upsert [sizes=100000,1000000,10000000] [changes=10000]
 * [checkpoints=5]}
 */
public final class UpsertBenchmark {
  private static final PrimaryKey KEY = PrimaryKey.of(TestRows.ROW_TYPE, List.of("id"), "bench");
  private static final int ROWS_PER_FRAGMENT = 1_000_000;

  public static void main(String[] args) throws Exception {
    long[] sizes =
        Arrays.stream((args.length > 0 ? args[0] : "100000,1000000,10000000").split(","))
            .mapToLong(Long::parseLong)
            .toArray();
    int changes = args.length > 1 ? Integer.parseInt(args[1]) : 10_000;
    int checkpoints = args.length > 2 ? Integer.parseInt(args[2]) : 5;
    Path dir = Files.createTempDirectory("bench-upsert");
    System.out.printf(
        "%,d changes per checkpoint, %d checkpoints per run; median over the checkpoints%n%n",
        changes, checkpoints);
    System.out.printf(
        "%12s  %-9s  %-14s  %10s  %10s  %12s%n",
        "table rows", "key index", "lookup", "commit ms", "lookup ms", "changes/s");
    for (long size : sizes) {
      for (boolean index : new boolean[] {false, true}) {
        String uri = dir.resolve("t-" + size + "-" + index).toString();
        run(uri, size, index, changes, checkpoints);
      }
    }
  }

  private static void run(String uri, long size, boolean index, int changes, int checkpoints)
      throws Exception {
    TestFragments.createTable(uri);
    for (long first = 0; first < size; first += ROWS_PER_FRAGMENT) {
      long last = Math.min(size, first + ROWS_PER_FRAGMENT);
      LanceTestTables.appendFragments(
          uri, TestFragments.write(uri, java.util.stream.LongStream.range(first, last).toArray()));
    }
    Configuration conf = new Configuration();
    conf.set(LanceDatasetOptions.PATH, uri);
    conf.set(LanceSinkOptions.SINK_UPSERT_KEY_INDEX, index);
    LanceSinkConfig config = LanceSinkConfig.from(conf, false, KEY);
    Random random = new Random(size);
    long[] commitMs = new long[checkpoints];
    long[] lookupMs = new long[checkpoints];
    boolean indexed = false;
    String run = UUID.randomUUID().toString();
    try (LanceCommitter committer = new LanceCommitter(config, TestCommitterContext.fresh())) {
      for (int c = 0; c < checkpoints; c++) {
        long[] updated = new long[changes - changes / 10];
        List<RowKey> keys = new ArrayList<>(changes);
        for (int i = 0; i < changes; i++) {
          long id = random.nextLong(size);
          keys.add(KEY.keyOf(TestRows.row(id)));
          if (i < updated.length) {
            updated[i] = id;
          }
        }
        List<FragmentMetadata> fragments = TestFragments.writeTagged(uri, "v" + c, updated);
        LanceCommittable committable =
            new LanceCommittable(
                new CommitStamp("bench", run, c + 1, c + 1, "bench"),
                VersionMark.NO_TABLE,
                false,
                fragments,
                ChangedKeys.inline(keys));
        if (c > 0) { // the first commit builds the index: not a lookup of the steady state
          try (BufferAllocator allocator = new RootAllocator();
              Dataset dataset = Dataset.open(uri, allocator)) {
            long start = System.nanoTime();
            KeyLookup.Found found = KeyLookup.find(dataset, KEY, keys);
            lookupMs[c] = (System.nanoTime() - start) / 1_000_000;
            indexed = found.indexedKeys();
          }
        }
        List<CommitRequest<LanceCommittable>> requests =
            List.of(new RecordingCommitRequest<>(committable));
        long start = System.nanoTime();
        committer.commit(requests);
        commitMs[c] = (System.nanoTime() - start) / 1_000_000;
      }
    }
    long commit = median(Arrays.copyOfRange(commitMs, 1, checkpoints));
    long lookup = median(Arrays.copyOfRange(lookupMs, 1, checkpoints));
    boolean hasIndex;
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = Dataset.open(uri, allocator)) {
      hasIndex = !KeyIndex.of(dataset, KEY).isEmpty();
    }
    System.out.printf(
        "%,12d  %-9s  %-14s  %10d  %10d  %,12d%n",
        size,
        hasIndex ? "btree" : "none",
        indexed ? "through index" : "scan",
        commit,
        lookup,
        commit == 0 ? 0 : changes * 1000L / commit);
  }

  private static long median(long[] values) {
    long[] sorted = values.clone();
    Arrays.sort(sorted);
    return sorted[sorted.length / 2];
  }

  private UpsertBenchmark() {}
}
