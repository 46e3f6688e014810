package dev.flinklance.compactor.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flinklance.compactor.LanceCompactionJob;
import dev.flinklance.compactor.commit.CompactionSummary;
import dev.flinklance.compactor.commit.CompactionSummary.Outcome;
import dev.flinklance.index.VectorIndex;
import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.Neighbours;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.lance.Dataset;
import org.lance.Fragment;
import org.lance.FragmentMetadata;
import org.lance.WriteParams;
import org.lance.index.DistanceType;
import org.lance.index.IndexDescription;
import org.lance.index.IndexParams;
import org.lance.index.IndexType;
import org.lance.index.vector.VectorIndexParams;
import org.lance.ipc.Query;

/**
 * Ingest, compaction and vector search together: a compaction pass also adds the fragments appended
 * since a vector index was built to the index (Lance's index optimisation), whether it compacted
 * anything or not, and the indexed search then finds both the appended and the compacted rows.
 */
class VectorIndexUpkeepITCase {
  private static final int DIM = 8;
  private static final Schema SCHEMA =
      new Schema(
          List.of(
              Field.notNullable("id", new ArrowType.Int(64, true)),
              new Field(
                  "v",
                  FieldType.notNullable(new ArrowType.FixedSizeList(DIM)),
                  List.of(
                      Field.notNullable(
                          "item", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE))))));

  @RegisterExtension static final MiniClusterExtension CLUSTER = CompactionTestCluster.create();

  @TempDir Path dir;

  @ParameterizedTest(name = "stable row ids: {0}")
  @ValueSource(booleans = {false, true})
  void compactionPassAddsNewFragmentsToTheVectorIndex(boolean stableRowIds) throws Exception {
    String table = dir.resolve("docs").toString();
    try (BufferAllocator allocator = new RootAllocator();
        Dataset ignored =
            Dataset.write()
                .allocator(allocator)
                .uri(table)
                .schema(SCHEMA)
                .enableStableRowIds(stableRowIds)
                .mode(WriteParams.WriteMode.CREATE)
                .execute()) {
      // created
    }
    LanceTestTables.appendFragments(table, write(table, 0, 1_000));
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = Dataset.open(table, allocator)) {
      dataset.createIndex(
          List.of("v"),
          IndexType.IVF_FLAT,
          Optional.of("v_idx"),
          IndexParams.builder()
              .setVectorIndexParams(VectorIndexParams.ivfFlat(4, DistanceType.L2))
              .build(),
          true);
    }
    for (long first = 1_000; first < 1_120; first += 20) {
      LanceTestTables.appendFragments(table, write(table, first, 20));
    }
    assertThat(index(table).missesFragmentsOf(open(table))).isTrue();

    List<CompactionSummary> compacted = compactOnce(table, 1_000_000);
    assertThat(compacted)
        .singleElement()
        .extracting(CompactionSummary::outcome)
        .isEqualTo(Outcome.COMMITTED);
    assertCoveredAndFound(table, 1_120, List.of(7L, 999L, 1_000L, 1_119L));

    LanceTestTables.appendFragments(table, write(table, 1_120, 30));
    List<CompactionSummary> nothing = compactOnce(table, 10);
    assertThat(nothing)
        .singleElement()
        .extracting(CompactionSummary::outcome)
        .isEqualTo(Outcome.NOTHING_TO_COMPACT);
    assertCoveredAndFound(table, 1_150, List.of(7L, 1_121L, 1_149L));
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
    try (Dataset dataset = open(table)) {
      VectorIndex index = index(table);
      assertThat(index.missesFragmentsOf(dataset)).as("index covers every fragment").isFalse();
      assertThat(dataset.describeIndices())
          .singleElement()
          .extracting(IndexDescription::getRowsIndexed)
          .isEqualTo(rows);
    }
    for (long id : ids) {
      assertThat(nearestWithIndex(table, vector(id))).as("nearest to row %d", id).isEqualTo(id);
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

  private static long nearestWithIndex(String table, float[] key) {
    Query query =
        new Query.Builder()
            .setColumn("v")
            .setKey(key)
            .setK(1)
            .setNprobes(4)
            .setUseIndex(true)
            .build();
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = Dataset.open(table, allocator)) {
      return Neighbours.nearest(dataset, query).get(0).id();
    }
  }

  /** Row {@code id}'s vector: random, the same for the same id. */
  private static float[] vector(long id) {
    Random random = new Random(id);
    float[] vector = new float[DIM];
    for (int d = 0; d < DIM; d++) {
      vector[d] = (float) random.nextGaussian();
    }
    return vector;
  }

  private static List<FragmentMetadata> write(String table, long first, int count) {
    try (BufferAllocator allocator = new RootAllocator();
        VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator)) {
      root.allocateNew();
      BigIntVector ids = (BigIntVector) root.getVector("id");
      FixedSizeListVector vectors = (FixedSizeListVector) root.getVector("v");
      Float4Vector items = (Float4Vector) vectors.getDataVector();
      for (int i = 0; i < count; i++) {
        ids.setSafe(i, first + i);
        vectors.setNotNull(i);
        float[] vector = vector(first + i);
        for (int d = 0; d < DIM; d++) {
          items.setSafe(i * DIM + d, vector[d]);
        }
      }
      root.setRowCount(count);
      return Fragment.write().datasetUri(table).allocator(allocator).data(root).execute();
    }
  }
}
