package dev.flinklance.compactor.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flinklance.compactor.LanceCompactionJob;
import dev.flinklance.compactor.commit.CompactionSummary;
import dev.flinklance.compactor.commit.CompactionSummary.Outcome;
import dev.flinklance.index.KeyIndex;
import dev.flinklance.index.ScalarIndex;
import dev.flinklance.key.PrimaryKey;
import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.TestClusters;
import dev.flinklance.testing.TestFragments;
import dev.flinklance.testing.TestRows;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.LongStream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.lance.Dataset;
import org.lance.WriteParams;
import org.lance.index.IndexDescription;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.ScanOptions;

/**
 * A compaction pass keeps the table's scalar (BTree) indexes up to date by the upsert sink's key
 * index rule: the fragments appended since an index was built are added to it once they hold
 * 100,000 rows (or a tenth of the indexed ones), whether the pass compacted anything or not; fewer
 * are left to the lookups' scans. Filters through the index find every row either way.
 */
class ScalarIndexUpkeepITCase {
  @RegisterExtension static final MiniClusterExtension CLUSTER = TestClusters.withFlinksRestarts();

  @TempDir Path dir;

  @ParameterizedTest(name = "stable row ids: {0}")
  @ValueSource(booleans = {false, true})
  void compactionPassAddsNewFragmentsToTheScalarIndexes(boolean stableRowIds) throws Exception {
    String table = dir.resolve("users").toString();
    try (BufferAllocator allocator = new RootAllocator();
        Dataset ignored =
            Dataset.write()
                .allocator(allocator)
                .uri(table)
                .schema(TestFragments.SCHEMA)
                .enableStableRowIds(stableRowIds)
                .mode(WriteParams.WriteMode.CREATE)
                .execute()) {
      // created
    }
    LanceTestTables.appendFragments(table, TestFragments.write(table, ids(0, 1_000)));
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = Dataset.open(table, allocator)) {
      KeyIndex.ensure(dataset, PrimaryKey.of(TestRows.ROW_TYPE, List.of("id"), table));
    }
    for (long first = 1_000; first < 101_000; first += 20_000) {
      LanceTestTables.appendFragments(table, TestFragments.write(table, ids(first, 20_000)));
    }
    assertThat(missesFragments(table)).isTrue();

    assertThat(compactOnce(table, 1_000_000))
        .singleElement()
        .extracting(CompactionSummary::outcome)
        .isEqualTo(Outcome.COMMITTED);
    assertThat(missesFragments(table)).as("100,000 new rows: added").isFalse();
    assertIndexedAndFound(table, 101_000, List.of(7L, 999L, 1_000L, 100_999L));

    LanceTestTables.appendFragments(table, TestFragments.write(table, ids(101_000, 30)));
    assertThat(compactOnce(table, 10))
        .singleElement()
        .extracting(CompactionSummary::outcome)
        .isEqualTo(Outcome.NOTHING_TO_COMPACT);
    assertThat(missesFragments(table)).as("30 new rows: scanned next to the index").isTrue();
    assertIndexedAndFound(table, 101_000, List.of(7L, 101_001L, 101_029L));

    LanceTestTables.appendFragments(table, TestFragments.write(table, ids(101_030, 100_000)));
    assertThat(compactOnce(table, 10))
        .singleElement()
        .extracting(CompactionSummary::outcome)
        .isEqualTo(Outcome.NOTHING_TO_COMPACT);
    assertThat(missesFragments(table)).as("added without a compaction").isFalse();
    assertIndexedAndFound(table, 201_030, List.of(7L, 101_001L, 201_029L));
  }

  private static long[] ids(long first, long count) {
    return LongStream.range(first, first + count).toArray();
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

  private static boolean missesFragments(String table) {
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = Dataset.open(table, allocator)) {
      return ScalarIndex.btreesOf(dataset).get(0).missesFragmentsOf(dataset);
    }
  }

  /** The index holds {@code rows} rows, and a filter through it finds each id. */
  private static void assertIndexedAndFound(String table, long rows, List<Long> ids)
      throws Exception {
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = Dataset.open(table, allocator)) {
      assertThat(dataset.describeIndices())
          .singleElement()
          .extracting(IndexDescription::getRowsIndexed)
          .isEqualTo(rows);
      String in = ids.stream().map(String::valueOf).reduce((a, b) -> a + ", " + b).orElseThrow();
      List<Long> found = new ArrayList<>();
      try (LanceScanner scanner =
              dataset.newScan(
                  new ScanOptions.Builder()
                      .columns(List.of("id"))
                      .filter("id IN (" + in + ")")
                      .useScalarIndex(true)
                      .build());
          ArrowReader reader = scanner.scanBatches()) {
        while (reader.loadNextBatch()) {
          BigIntVector id = (BigIntVector) reader.getVectorSchemaRoot().getVector("id");
          for (int i = 0; i < id.getValueCount(); i++) {
            found.add(id.get(i));
          }
        }
      }
      assertThat(found).containsExactlyInAnyOrderElementsOf(ids);
    }
  }
}
