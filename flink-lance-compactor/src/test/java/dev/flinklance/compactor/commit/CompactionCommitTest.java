package dev.flinklance.compactor.commit;

import static dev.flinklance.compactor.testing.LineageTables.append;
import static dev.flinklance.compactor.testing.LineageTables.createStable;
import static dev.flinklance.compactor.testing.LineageTables.delete;
import static dev.flinklance.compactor.testing.LineageTables.rowsByRowId;
import static dev.flinklance.compactor.testing.LineageTables.update;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flinklance.compactor.CompactionConfig;
import dev.flinklance.compactor.commit.CompactionSummary.Outcome;
import dev.flinklance.compactor.lineage.RowIdMetaJson;
import dev.flinklance.compactor.lineage.SpillVerificationException;
import dev.flinklance.compactor.testing.LineageTables;
import dev.flinklance.files.TableFiles;
import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.TestFragments;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.stream.Collectors;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.Dataset;
import org.lance.Fragment;
import org.lance.FragmentMetadata;
import org.lance.compaction.CompactionOptions;
import org.lance.compaction.RewriteResult;

/** {@link CompactionCommit} on real stable-row-id tables: spill, preemption, replays, checks. */
class CompactionCommitTest {
  @TempDir Path dir;

  /** 2,000 rows in 4 fragments, 300 of them updated by merge-insert, every 7th deleted. */
  private String scatteredTable(String name) {
    String uri = dir.resolve(name).toString();
    createStable(uri);
    append(uri, 0, 2_000, 4);
    Random random = new Random(42);
    List<Long> updated = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      updated.add((long) random.nextInt(2_000));
    }
    update(uri, updated.stream().distinct().toList());
    delete(uri, "id % 7 = 0");
    append(uri, 2_000, 200, 2);
    return uri;
  }

  @Test
  void spillsCarriedOverRowIdsAndKeepsEveryRowsLineage() throws IOException {
    String spilled = scatteredTable("spilled");
    String inline = scatteredTable("inline");
    Rewrites.spillEverything(spilled);
    Map<Long, List<Object>> before = rowsByRowId(spilled);

    CompactionSummary summary = Rewrites.rewrite(spilled).commit(spilled, false);
    Rewrites.rewrite(inline).commit(inline, false);

    assertThat(summary.outcome()).isEqualTo(Outcome.COMMITTED);
    assertThat(summary.lineageBytesSpilled()).isPositive();
    assertThat(summary.fragmentsAfter()).isLessThan(summary.fragmentsBefore());
    assertThat(rowsByRowId(spilled)).isEqualTo(before);
    assertThat(externalFragments(spilled)).isPositive();
    assertThat(externalFragments(inline)).isZero();
    assertThat(LineageTables.sideFiles(spilled)).hasSize(1);
    assertThat(LineageTables.manifestBytes(spilled))
        .isLessThan(LineageTables.manifestBytes(inline));
    assertLookupsByRowId(spilled, before);

    // a later compaction of ours rewrites fragments whose row ids are in a side file
    append(spilled, 3_000, 300, 3);
    delete(spilled, "id % 11 = 0");
    update(spilled, List.of(1L, 500L, 999L, 3_001L));
    Map<Long, List<Object>> beforeSecond = rowsByRowId(spilled);
    assertThat(Rewrites.rewrite(spilled).commit(spilled, false).outcome())
        .isEqualTo(Outcome.COMMITTED);
    assertThat(rowsByRowId(spilled)).isEqualTo(beforeSecond);
    assertLookupsByRowId(spilled, beforeSecond);

    // and Lance's own compaction reads them, writing the row ids back inline
    append(spilled, 4_000, 100, 2);
    Map<Long, List<Object>> beforeLance = rowsByRowId(spilled);
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = Dataset.open().allocator(allocator).uri(spilled).build()) {
      dataset.compact(CompactionOptions.builder().withTargetRowsPerFragment(1_000_000).build());
    }
    assertThat(rowsByRowId(spilled)).isEqualTo(beforeLance);
    assertThat(externalFragments(spilled)).isZero();

    // our next compaction spills the fragment Lance wrote inline, along with its own rewrite
    append(spilled, 5_000, 100, 2);
    Map<Long, List<Object>> beforeRespill = rowsByRowId(spilled);
    long manifestBeforeRespill = LineageTables.manifestBytes(spilled);
    // a target below the Lance-compacted fragment's size: only the appended fragments are planned
    CompactionSummary respill = Rewrites.rewrite(spilled, 1_000).commit(spilled, false);
    assertThat(respill.outcome()).isEqualTo(Outcome.COMMITTED);
    assertThat(respill.fragmentsRewritten()).as("the plan: two appended fragments").isEqualTo(2);
    assertThat(externalFragments(spilled)).as("the Lance-compacted fragment").isEqualTo(1);
    assertThat(rowsByRowId(spilled)).isEqualTo(beforeRespill);
    // a compaction version's manifest also holds its transaction; the next append's does not
    append(spilled, 6_000, 10, 1);
    assertThat(LineageTables.manifestBytes(spilled)).isLessThan(manifestBeforeRespill);
    assertLookupsByRowId(spilled, rowsByRowId(spilled));
  }

  private static void assertLookupsByRowId(String uri, Map<Long, List<Object>> expected) {
    List<Long> rowIds = new ArrayList<>(expected.keySet());
    java.util.Collections.shuffle(rowIds, new Random(7));
    List<Long> sample = rowIds.subList(0, 50);
    assertThat(LineageTables.takeIds(uri, sample))
        .containsExactlyElementsOf(
            sample.stream().map(id -> Long.parseLong((String) expected.get(id).get(0))).toList());
    String filter =
        "_rowid IN ("
            + sample.stream().map(String::valueOf).collect(Collectors.joining(", "))
            + ")";
    Map<Long, List<Object>> filtered = rowsByRowId(uri, filter);
    assertThat(filtered)
        .isEqualTo(sample.stream().collect(Collectors.toMap(id -> id, expected::get)));
  }

  private static long externalFragments(String uri) {
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = Dataset.open().allocator(allocator).uri(uri).build()) {
      return dataset.getFragments().stream()
          .map(Fragment::metadata)
          .filter(f -> RowIdMetaJson.externalSlice(f.getRowIdMeta()).isPresent())
          .count();
    }
  }

  @Test
  void appendedAndSmallSequencesStayInline() throws IOException {
    String uri = dir.resolve("budget").toString();
    createStable(uri);
    append(uri, 0, 1_000, 5);
    LineageTables.setConfig(uri, Map.of("lance.row_lineage.spill", "true"));

    CompactionSummary summary = Rewrites.rewrite(uri).commit(uri, false);

    // contiguous row ids encode as a range of a few bytes: far under the default budget
    assertThat(summary.outcome()).isEqualTo(Outcome.COMMITTED);
    assertThat(summary.lineageBytesSpilled()).isZero();
    assertThat(externalFragments(uri)).isZero();
    assertThat(LineageTables.sideFiles(uri)).isEmpty();
  }

  @Test
  void aSliceReadBackDifferentlyAbortsTheCommit() {
    String uri = scatteredTable("corrupt");
    Rewrites.spillEverything(uri);
    long version = LanceTestTables.latestVersion(uri);
    Rewrites rewrites = Rewrites.rewrite(uri);
    CompactionConfig config = Rewrites.config(uri);
    TableFiles corrupting = new CorruptingSideFiles(TableFiles.of(config.dataset()).orElseThrow());

    assertThatThrownBy(() -> rewrites.commit(config, Optional.of(corrupting), false))
        .isInstanceOf(SpillVerificationException.class)
        .hasMessageContaining("differ from those written");
    assertThat(LanceTestTables.latestVersion(uri)).isEqualTo(version);
  }

  @Test
  void aSideFileOlderThanHalfTheGcAgeIsNotCommitted() {
    String uri = scatteredTable("stale");
    Rewrites.spillEverything(uri);
    long version = LanceTestTables.latestVersion(uri);
    Rewrites rewrites = Rewrites.rewrite(uri);
    CompactionConfig config = Rewrites.config(uri, Duration.ofMillis(1));
    TableFiles slow = new CorruptingSideFiles(TableFiles.of(config.dataset()).orElseThrow(), 5);

    assertThatThrownBy(() -> rewrites.commit(config, Optional.of(slow), false))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("compaction.side-file-min-age");
    assertThat(LanceTestTables.latestVersion(uri)).isEqualTo(version);
  }

  @Test
  void rewritesPreemptedByAConcurrentDeleteAreDropped() throws IOException {
    String uri = scatteredTable("delete");
    Rewrites rewrites = Rewrites.rewrite(uri);
    delete(uri, "id = 3 OR id = 2001");
    Map<Long, List<Object>> expected = rowsByRowId(uri);
    long version = LanceTestTables.latestVersion(uri);

    CompactionSummary summary = rewrites.commit(uri, false);

    assertThat(summary.outcome()).isEqualTo(Outcome.NOTHING_COMMITTED);
    assertThat(summary.groupsPreempted()).isEqualTo(rewrites.results.size());
    assertThat(LanceTestTables.latestVersion(uri)).isEqualTo(version);
    assertThat(rowsByRowId(uri)).isEqualTo(expected);
  }

  @Test
  void aRewritePreemptedByAConcurrentOverwriteIsDropped() throws IOException {
    String uri = scatteredTable("overwrite");
    Rewrites rewrites = Rewrites.rewrite(uri);
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = Dataset.open().allocator(allocator).uri(uri).build()) {
      List<FragmentMetadata> fragments = TestFragments.write(uri, 7, 8, 9);
      try (var txn =
              new org.lance.Transaction.Builder()
                  .readVersion(dataset.version())
                  .operation(
                      org.lance.operation.Overwrite.builder()
                          .fragments(fragments)
                          .schema(TestFragments.SCHEMA)
                          .build())
                  .build();
          Dataset ignored = new org.lance.CommitBuilder(dataset).execute(txn)) {
        // overwritten
      }
    }

    CompactionSummary summary = rewrites.commit(uri, false);

    assertThat(summary.outcome()).isEqualTo(Outcome.NOTHING_COMMITTED);
    assertThat(LanceTestTables.readLongs(uri, "id")).containsExactlyInAnyOrder(7L, 8L, 9L);
  }

  @Test
  void aCommitThatLandedBeforeARestoreIsRecognised() throws IOException {
    String uri = scatteredTable("replay");
    Rewrites rewrites = Rewrites.rewrite(uri);
    CompactionSummary first = rewrites.commit(uri, false);
    Map<Long, List<Object>> after = rowsByRowId(uri);

    CompactionSummary replay = rewrites.commit(uri, true);

    assertThat(replay.outcome()).isEqualTo(Outcome.ALREADY_COMMITTED);
    assertThat(replay.version()).isEqualTo(first.version());
    assertThat(LanceTestTables.latestVersion(uri)).isEqualTo(first.version());
    assertThat(rowsByRowId(uri)).isEqualTo(after);
  }

  @Test
  void swappedFragmentListsAreNeverCommitted() throws IOException {
    String uri = scatteredTable("swapped");
    Rewrites rewrites = Rewrites.rewrite(uri);
    Map<Long, List<Object>> expected = rowsByRowId(uri);
    long version = LanceTestTables.latestVersion(uri);
    List<RewriteResult> swapped =
        rewrites.results.stream()
            .map(
                r ->
                    new RewriteResult(
                        r.getMetrics(),
                        r.getOriginalFragments(),
                        r.getNewFragments(),
                        r.getReadVersion(),
                        r.getRowAddrs()))
            .toList();
    rewrites.results.clear();
    rewrites.results.addAll(swapped);

    CompactionSummary summary = rewrites.commit(uri, false);

    assertThat(summary.outcome()).isEqualTo(Outcome.NOTHING_COMMITTED);
    assertThat(LanceTestTables.latestVersion(uri)).isEqualTo(version);
    assertThat(rowsByRowId(uri)).isEqualTo(expected);
  }

  /** Side files whose reads come back corrupted, or slowly. */
  private static final class CorruptingSideFiles implements TableFiles {
    private final TableFiles delegate;
    private final long readDelayMillis;

    CorruptingSideFiles(TableFiles delegate) {
      this(delegate, -1);
    }

    CorruptingSideFiles(TableFiles delegate, long readDelayMillis) {
      this.delegate = delegate;
      this.readDelayMillis = readDelayMillis;
    }

    @Override
    public void write(String name, byte[] bytes) throws IOException {
      delegate.write(name, bytes);
    }

    @Override
    public byte[] read(String name, long offset, int length) throws IOException {
      byte[] bytes = delegate.read(name, offset, length);
      if (readDelayMillis < 0) {
        bytes[length / 2] ^= 1;
      } else {
        try {
          Thread.sleep(readDelayMillis);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      return bytes;
    }

    @Override
    public void replace(String name, byte[] bytes) throws IOException {
      delegate.replace(name, bytes);
    }

    @Override
    public Optional<byte[]> read(String name) throws IOException {
      return delegate.read(name);
    }

    @Override
    public List<Listed> list(String prefix) throws IOException {
      return delegate.list(prefix);
    }

    @Override
    public void delete(String name) throws IOException {
      delegate.delete(name);
    }

    @Override
    public void close() {
      delegate.close();
    }
  }
}
