package dev.flinklance.compactor.plan;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flinklance.compactor.CompactionConfig;
import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.VectorTables;
import java.nio.file.Path;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.configuration.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.Dataset;
import org.lance.FragmentMetadata;
import org.lance.index.DistanceType;
import org.lance.index.IndexDescription;
import org.lance.index.IndexType;
import org.lance.index.vector.VectorIndexParams;

/**
 * Planning on a real stable-row-id table whose vector index holds deleted rows: the indexed
 * fragments with deletions are planned only once a rebuild has dropped those rows from the index,
 * and it is rebuilt only while no plan of ours is in flight (the rebuild would preempt it).
 */
class PlanningTest {
  private static final VectorTables TABLES = VectorTables.SMALL;

  @TempDir Path dir;

  @Test
  void indexedDeletionsAreCompactedOnlyAfterTheIndexIsRebuilt() {
    String uri = dir.resolve("t").toString();
    TABLES.create(uri, true);
    for (long first = 0; first < 2_000; first += 500) {
      LanceTestTables.appendFragments(uri, TABLES.write(uri, first, 500));
    }
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = Dataset.open(uri, allocator)) {
      VectorTables.index(
          dataset, IndexType.IVF_FLAT, VectorIndexParams.ivfFlat(4, DistanceType.L2));
      dataset.delete("id % 5 = 0");
    }
    for (long first = 2_000; first < 2_300; first += 100) {
      LanceTestTables.appendFragments(uri, TABLES.write(uri, first, 100));
    }
    Configuration conf = new Configuration();
    conf.setString("path", uri);
    Planning planning = new Planning(CompactionConfig.from(conf));

    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = Dataset.open(uri, allocator)) {
      FragmentMetadata rewriting = dataset.getFragments().get(6).metadata();
      InFlightPlan inFlight = new InFlightPlan("p", 0, List.of(FragmentKey.of(rewriting)));
      String built = indexSegments(dataset);

      Planning.Evaluation whileInFlight =
          planning.evaluate(dataset, List.of(inFlight), true, 0, 0, 1);

      assertThat(sourceIds(whileInFlight)).containsExactly(4, 5);
      assertThat(indexSegments(dataset)).as("not rebuilt").isEqualTo(built);

      Planning.Evaluation idle = planning.evaluate(dataset, List.of(), true, 0, 0, 1);

      assertThat(indexSegments(dataset)).as("rebuilt").isNotEqualTo(built);
      assertThat(sourceIds(idle)).containsExactly(0, 1, 2, 3, 4, 5, 6);
    }
  }

  private static List<Integer> sourceIds(Planning.Evaluation evaluation) {
    return evaluation.planned().inFlight().sources().stream()
        .map(FragmentKey::id)
        .sorted()
        .toList();
  }

  private static String indexSegments(Dataset dataset) {
    return dataset.describeIndices().stream()
        .map(IndexDescription::getSegments)
        .toList()
        .toString();
  }
}
