package dev.flinklance.compactor.it;

import static java.util.stream.Collectors.toSet;
import static org.assertj.core.api.Assertions.assertThat;

import dev.flinklance.compactor.LanceCompactionJob;
import dev.flinklance.compactor.commit.CompactionSummary;
import dev.flinklance.compactor.commit.CompactionSummary.Outcome;
import dev.flinklance.index.VectorIndex;
import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.TestClusters;
import dev.flinklance.testing.VectorTables;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.LongStream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.lance.Dataset;
import org.lance.index.DistanceType;
import org.lance.index.IndexDescription;
import org.lance.index.IndexType;
import org.lance.index.vector.VectorIndexParams;

/**
 * Ingest, compaction and vector search together: a compaction pass also adds the fragments appended
 * since a vector index was built to the index (Lance's index optimisation), whether it compacted
 * anything or not, and the indexed search then finds both the appended and the compacted rows. A
 * pass that compacts deleted rows away leaves the indexed search exact.
 */
class VectorIndexUpkeepITCase {
  private static final VectorTables TABLES = VectorTables.SMALL;

  @RegisterExtension static final MiniClusterExtension CLUSTER = TestClusters.withFlinksRestarts();

  @TempDir Path dir;

  @ParameterizedTest(name = "stable row ids: {0}")
  @ValueSource(booleans = {false, true})
  void compactionPassAddsNewFragmentsToTheVectorIndex(boolean stableRowIds) throws Exception {
    String table = dir.resolve("docs").toString();
    TABLES.create(table, stableRowIds);
    LanceTestTables.appendFragments(table, TABLES.write(table, 0, 1_000));
    buildIndex(table);
    for (long first = 1_000; first < 1_120; first += 20) {
      LanceTestTables.appendFragments(table, TABLES.write(table, first, 20));
    }
    assertThat(index(table).missesFragmentsOf(open(table))).isTrue();

    List<CompactionSummary> compacted = compactOnce(table, 1_000_000);
    assertThat(compacted)
        .singleElement()
        .extracting(CompactionSummary::outcome)
        .isEqualTo(Outcome.COMMITTED);
    assertCoveredAndFound(table, 1_120, List.of(7L, 999L, 1_000L, 1_119L));

    LanceTestTables.appendFragments(table, TABLES.write(table, 1_120, 30));
    List<CompactionSummary> nothing = compactOnce(table, 10);
    assertThat(nothing)
        .singleElement()
        .extracting(CompactionSummary::outcome)
        .isEqualTo(Outcome.NOTHING_TO_COMPACT);
    assertCoveredAndFound(table, 1_150, List.of(7L, 1_121L, 1_149L));
  }

  /**
   * lance-core 7.0.0 on a stable-row-id table: a compaction that drops deleted rows leaves their
   * entries in the vector index, and once no indexed fragment has a deletion file Lance no longer
   * masks them: they take places in the top k and vanish from the results. Lance also cannot add
   * new fragments to an index that holds deleted rows. The pass must leave neither behind.
   */
  @ParameterizedTest(name = "stable row ids: {0}")
  @ValueSource(booleans = {false, true})
  void searchAfterCompactingDeletedRowsIsExact(boolean stableRowIds) throws Exception {
    String table = dir.resolve("deleted").toString();
    TABLES.create(table, stableRowIds);
    for (long first = 0; first < 2_000; first += 500) {
      LanceTestTables.appendFragments(table, TABLES.write(table, first, 500));
    }
    buildIndex(table);
    delete(table, "id % 5 = 0");
    Set<Long> live = LongStream.range(0, 2_000).filter(id -> id % 5 != 0).boxed().collect(toSet());
    assertExactSearch(table, live, "before the pass");

    assertThat(compactOnce(table, 1_000_000))
        .singleElement()
        .extracting(CompactionSummary::outcome)
        .isEqualTo(Outcome.COMMITTED);
    assertDeletionsCompactedAndIndexed(table, live.size());
    assertExactSearch(table, live, "after the pass");

    // more deletes and new rows: the next pass adds the rows to the index and stays exact
    LanceTestTables.appendFragments(table, TABLES.write(table, 2_000, 300));
    delete(table, "id % 7 = 0");
    live.addAll(LongStream.range(2_000, 2_300).boxed().toList());
    live.removeIf(id -> id % 7 == 0);
    compactOnce(table, 1_000_000);
    assertDeletionsCompactedAndIndexed(table, live.size());
    assertExactSearch(table, live, "after the second pass");
  }

  private static void buildIndex(String table) {
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = Dataset.open(table, allocator)) {
      VectorTables.index(
          dataset, IndexType.IVF_FLAT, VectorIndexParams.ivfFlat(4, DistanceType.L2));
    }
  }

  private static void delete(String table, String predicate) {
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = Dataset.open(table, allocator)) {
      dataset.delete(predicate);
    }
  }

  private static List<CompactionSummary> compactOnce(String table, long targetRows)
      throws Exception {
    Configuration options = new Configuration();
    options.setString("path", table);
    options.setString("compaction.target-rows-per-fragment", String.valueOf(targetRows));
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setParallelism(1);
    return LanceCompactionJob.compactOnce(env, options);
  }

  /** The index covers every fragment and every row, and the indexed search finds each id. */
  private static void assertCoveredAndFound(String table, long rows, List<Long> ids) {
    assertIndexCovers(table, rows);
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = Dataset.open(table, allocator)) {
      for (long id : ids) {
        assertThat(VectorTables.search(dataset, TABLES.vector(id), 1))
            .as("nearest to row %d", id)
            .containsExactly(id);
      }
    }
  }

  /** IVF_FLAT probing every partition is exact: 20 searches equal brute force over live rows. */
  private static void assertExactSearch(String table, Set<Long> live, String when) {
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = Dataset.open(table, allocator)) {
      for (int q = 1; q <= 20; q++) {
        float[] key = TABLES.vector(-q);
        assertThat(VectorTables.search(dataset, key, 10))
            .as("indexed search %d %s vs brute force over the live rows", q, when)
            .isEqualTo(TABLES.nearest(live, key, 10));
      }
    }
  }

  private static void assertDeletionsCompactedAndIndexed(String table, long liveRows) {
    try (Dataset dataset = open(table)) {
      assertThat(dataset.getFragments())
          .as("deletions compacted")
          .allSatisfy(f -> assertThat(f.metadata().getDeletionFile()).isNull());
    }
    assertIndexCovers(table, liveRows);
  }

  private static void assertIndexCovers(String table, long rows) {
    try (Dataset dataset = open(table)) {
      assertThat(index(table).missesFragmentsOf(dataset))
          .as("index covers every fragment")
          .isFalse();
      assertThat(dataset.describeIndices())
          .singleElement()
          .extracting(IndexDescription::getRowsIndexed)
          .isEqualTo(rows);
    }
  }

  private static VectorIndex index(String table) {
    try (Dataset dataset = open(table)) {
      return VectorIndex.on(dataset, "v").orElseThrow();
    }
  }

  private static Dataset open(String table) {
    return Dataset.open(table, new RootAllocator());
  }
}
