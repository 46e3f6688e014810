package dev.flinklance.index.vector;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flinklance.access.OpenTable;
import dev.flinklance.access.TableRef;
import dev.flinklance.index.VectorIndex;
import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.VectorTables;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import org.apache.flink.util.FileUtils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.Dataset;
import org.lance.index.DistanceType;
import org.lance.index.IndexType;
import org.lance.index.vector.VectorIndexParams;

/**
 * On real tables: the upkeep adds the fragments an index misses, leaves an index that covers every
 * fragment or holds deleted rows alone, and never fails.
 */
class VectorIndexUpkeepTest {
  private static final VectorTables TABLES = VectorTables.SMALL;

  @TempDir Path dir;

  /** Two indexed fragments of 200 rows. */
  private OpenTable indexed(boolean stableRowIds) {
    String uri = dir.resolve("t").toString();
    TABLES.create(uri, stableRowIds);
    TABLES.append(uri, 0, 200);
    TABLES.append(uri, 200, 200);
    OpenTable table = OpenTable.latest(new TableRef(uri, Map.of()));
    VectorTables.index(
        table.dataset(), IndexType.IVF_FLAT, VectorIndexParams.ivfFlat(2, DistanceType.L2));
    table.moveToLatest();
    return table;
  }

  @Test
  void appendedFragmentsAreAddedAndAnUpToDateIndexIsLeftAlone() {
    try (OpenTable table = indexed(false)) {
      Dataset dataset = table.dataset();
      long built = dataset.version();
      assertThat(VectorIndexUpkeep.run(dataset)).isEmpty();
      assertThat(LanceTestTables.latestVersion(dataset.uri())).isEqualTo(built);

      TABLES.append(dataset.uri(), 400, 100);
      assertThat(VectorIndexUpkeep.run(dataset)).containsExactly(VectorTables.INDEX);

      dataset.checkoutLatest();
      assertThat(dataset.version()).isEqualTo(built + 2);
      assertThat(VectorIndex.on(dataset, "v").orElseThrow().missesFragmentsOf(dataset)).isFalse();
    }
  }

  @Test
  void anIndexHoldingDeletedRowsIsLeftToTheRebuild() {
    try (OpenTable table = indexed(true)) {
      Dataset dataset = table.dataset();
      dataset.delete("id % 5 = 0");
      TABLES.append(dataset.uri(), 400, 100);
      dataset.checkoutLatest();
      long version = dataset.version();

      assertThat(VectorIndexUpkeep.run(dataset)).isEmpty();

      assertThat(LanceTestTables.latestVersion(dataset.uri())).isEqualTo(version);
      assertThat(VectorIndex.on(dataset, "v").orElseThrow().missesFragmentsOf(dataset)).isTrue();
    }
  }

  @Test
  void aFailureLeavesTheIndexesAsTheyAre() throws IOException {
    try (OpenTable table = indexed(false)) {
      Dataset dataset = table.dataset();
      TABLES.append(dataset.uri(), 400, 100);
      FileUtils.deleteDirectory(Path.of(dataset.uri()).toFile());

      assertThat(VectorIndexUpkeep.run(dataset)).isEmpty();
    }
  }
}
