package dev.flinklance.index.scalar;

import static dev.flinklance.index.scalar.ScalarIndexBuildTest.ROW_TYPE;
import static dev.flinklance.index.scalar.ScalarIndexBuildTest.rows;
import static org.assertj.core.api.Assertions.assertThat;

import dev.flinklance.access.TableRef;
import dev.flinklance.index.ScalarIndex;
import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.TestTables;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.util.FileUtils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.Dataset;

/**
 * On a real table: appended rows join a BTree index once they are 100,000 (or a tenth of the
 * indexed rows); an index on a column lookups cannot use is left alone; a failure fails nothing.
 */
class ScalarIndexUpkeepTest {
  @TempDir Path dir;

  @Test
  void appendedRowsJoinTheIndexOnceTheyAreMany() {
    String uri = dir.resolve("t").toString();
    TestTables.write(uri, ROW_TYPE, rows(0, 100), 100);
    ScalarIndexBuild.create(new TableRef(uri, Map.of()), "id");
    TestTables.createScalarIndex(uri, "score");
    TestTables.append(uri, ROW_TYPE, rows(100, 130), 30);
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = Dataset.open(uri, allocator)) {
      long version = dataset.version();
      assertThat(ScalarIndexUpkeep.run(dataset)).as("30 rows: lookups scan them").isEmpty();
      assertThat(LanceTestTables.latestVersion(uri)).isEqualTo(version);

      TestTables.append(uri, ROW_TYPE, rows(130, 100_130), 100_000);
      assertThat(ScalarIndexUpkeep.run(dataset)).containsExactly("id");

      assertThat(LanceTestTables.latestVersion(uri)).isEqualTo(version + 2);
      assertThat(
              ScalarIndex.btreesOf(dataset).stream()
                  .collect(
                      Collectors.toMap(
                          ScalarIndex::column, index -> index.missesFragmentsOf(dataset))))
          .as("misses fragments, per column")
          .isEqualTo(Map.of("id", false, "score", true));
    }
  }

  @Test
  void aFailureLeavesTheIndexesAsTheyAre() throws IOException {
    String uri = dir.resolve("t").toString();
    TestTables.write(uri, ROW_TYPE, rows(0, 100), 100);
    ScalarIndexBuild.create(new TableRef(uri, Map.of()), "id");
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = Dataset.open(uri, allocator)) {
      FileUtils.deleteDirectory(Path.of(uri).toFile());

      assertThat(ScalarIndexUpkeep.run(dataset)).isEmpty();
    }
  }
}
