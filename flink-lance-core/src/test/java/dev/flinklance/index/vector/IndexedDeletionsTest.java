package dev.flinklance.index.vector;

import static dev.flinklance.testing.VectorTables.search;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flinklance.index.VectorIndex;
import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.VectorTables;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.UInt1Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.lance.Dataset;
import org.lance.Fragment;
import org.lance.WriteParams;
import org.lance.compaction.Compaction;
import org.lance.compaction.CompactionOptions;
import org.lance.compaction.CompactionTask;
import org.lance.compaction.RewriteResult;
import org.lance.index.DistanceType;
import org.lance.index.Index;
import org.lance.index.IndexType;
import org.lance.index.OptimizeOptions;
import org.lance.index.vector.HnswBuildParams;
import org.lance.index.vector.IvfBuildParams;
import org.lance.index.vector.PQBuildParams;
import org.lance.index.vector.SQBuildParams;
import org.lance.index.vector.VectorIndexParams;
import org.lance.util.JsonUtils;

/**
 * On real stable-row-id tables: what lance-core 7.0.0 does to a vector index holding deleted rows,
 * and how a pass prepares for it (rebuild with the same parameters, or keep the fragments).
 */
class IndexedDeletionsTest {
  private static final VectorTables TABLES = VectorTables.SMALL;

  @TempDir Path dir;
  private BufferAllocator allocator;

  @BeforeEach
  void allocate() {
    allocator = new RootAllocator();
  }

  @AfterEach
  void release() {
    allocator.close();
  }

  /** 4 indexed fragments of 500 rows, {@code id % 5 = 0} deleted. */
  private Dataset indexedWithDeletions(
      boolean stableRowIds, IndexType type, VectorIndexParams params) {
    String uri = dir.resolve("t").toString();
    TABLES.create(uri, stableRowIds);
    for (long first = 0; first < 2_000; first += 500) {
      TABLES.append(uri, first, 500);
    }
    Dataset dataset = Dataset.open(uri, allocator);
    VectorTables.index(dataset, type, params);
    dataset.delete("id % 5 = 0");
    return dataset;
  }

  private static List<Long> live(long rows) {
    return LongStream.range(0, rows).filter(id -> id % 5 != 0).boxed().toList();
  }

  @Test
  void lanceCompactionLeavesDeletedRowsInTheIndexAndTheRebuildDropsThem() {
    try (Dataset dataset =
        indexedWithDeletions(
            true, IndexType.IVF_FLAT, VectorIndexParams.ivfFlat(4, DistanceType.L2))) {
      float[] deletedRow = TABLES.vector(0);
      assertThat(search(dataset, deletedRow, 10))
          .isEqualTo(TABLES.nearest(live(2_000), deletedRow, 10));

      dataset.compact();
      dataset.checkoutLatest();
      assertThat(dataset.getFragments())
          .allSatisfy(f -> assertThat(f.metadata().getDeletionFile()).isNull());
      VectorIndex index = VectorIndex.on(dataset, "v").orElseThrow();
      assertThat(IndexedDeletions.holdsDeletedRows(dataset, index)).isTrue();
      // lance-core 7.0.0: the deleted row's own entry is nearest, is found, and is dropped on read
      assertThat(search(dataset, deletedRow, 10)).hasSizeLessThan(10);
      TABLES.append(dataset.uri(), 2_000, 100);
      dataset.checkoutLatest();
      for (boolean retrain : new boolean[] {false, true}) {
        assertThatThrownBy(
                () -> dataset.optimizeIndices(OptimizeOptions.builder().retrain(retrain).build()))
            .hasMessageContaining("batch.num_rows() != chunk.len()");
      }

      assertThat(IndexedDeletions.prepare(dataset, true)).isEmpty();
      index = VectorIndex.on(dataset, "v").orElseThrow();
      assertThat(IndexedDeletions.holdsDeletedRows(dataset, index)).isFalse();
      assertThat(index.missesFragmentsOf(dataset)).isFalse();
      List<Long> live =
          Stream.concat(live(2_000).stream(), LongStream.range(2_000, 2_100).boxed()).toList();
      for (long id : List.of(0L, 5L, 7L, 2_050L)) {
        assertThat(search(dataset, TABLES.vector(id), 10))
            .isEqualTo(TABLES.nearest(live, TABLES.vector(id), 10));
      }
    }
  }

  /**
   * An update keeps the row id and deletes the old row, but the index keeps the entry of the old
   * vector: a search near it is wrong even before any compaction. The rebuild indexes the rows as
   * they are.
   */
  @Test
  void anUpdatedRowIsFoundAtItsOldVectorUntilTheRebuild() {
    String uri = dir.resolve("t").toString();
    TABLES.create(uri, true);
    TABLES.append(uri, 0, 2_000);
    VectorTables moved =
        new VectorTables(8, id -> VectorTables.gaussian(id < 100 ? 1_000_000 + id : id, 8));
    List<Long> ids = LongStream.range(0, 2_000).boxed().toList();
    try (Dataset dataset = Dataset.open(uri, allocator)) {
      VectorTables.index(
          dataset, IndexType.IVF_FLAT, VectorIndexParams.ivfFlat(4, DistanceType.L2));
      moved.update(dataset, 0, 100);
      VectorIndex index = VectorIndex.on(dataset, "v").orElseThrow();
      assertThat(IndexedDeletions.holdsDeletedRows(dataset, index)).isTrue();
      float[] oldVector = TABLES.vector(42);
      assertThat(search(dataset, oldVector, 10))
          .as("lance-core 7.0.0: the stale entry is nearest and resolves to a live row")
          .isNotEqualTo(moved.nearest(ids, oldVector, 10));

      assertThat(IndexedDeletions.prepare(dataset, true)).isEmpty();

      for (long id : List.of(3L, 42L, 1_000_042L, 500L)) {
        float[] key = TABLES.vector(id);
        assertThat(search(dataset, key, 10)).isEqualTo(moved.nearest(ids, key, 10));
      }
    }
  }

  @Test
  void anIndexCommitPreemptsACompactionPlannedBeforeIt() {
    try (Dataset dataset =
        indexedWithDeletions(
            true, IndexType.IVF_FLAT, VectorIndexParams.ivfFlat(4, DistanceType.L2))) {
      CompactionOptions options = CompactionOptions.builder().build();
      List<RewriteResult> rewritten = new ArrayList<>();
      for (CompactionTask task : Compaction.planCompaction(dataset, options).getCompactionTasks()) {
        rewritten.add(task.execute(dataset));
      }

      IndexedDeletions.prepare(dataset, true);

      assertThatThrownBy(() -> Compaction.commitCompaction(dataset, rewritten, options))
          .hasMessageContaining("preempted by concurrent transaction CreateIndex");
    }
  }

  static Stream<Arguments> indexTypes() {
    IvfBuildParams ivf =
        new IvfBuildParams.Builder().setNumPartitions(3).setMaxIters(7).setSampleRate(64).build();
    HnswBuildParams hnsw = new HnswBuildParams.Builder().setM(12).setEfConstruction(99).build();
    PQBuildParams pq =
        new PQBuildParams.Builder().setNumSubVectors(4).setNumBits(4).setMaxIters(9).build();
    SQBuildParams sq = new SQBuildParams.Builder().setNumBits((short) 8).setSampleRate(128).build();
    return Stream.of(
        Arguments.of(IndexType.IVF_FLAT, VectorIndexParams.ivfFlat(3, DistanceType.Cosine)),
        Arguments.of(
            IndexType.IVF_SQ,
            new VectorIndexParams.Builder(ivf)
                .setDistanceType(DistanceType.Dot)
                .setSqParams(sq)
                .build()),
        Arguments.of(IndexType.IVF_PQ, VectorIndexParams.withIvfPqParams(DistanceType.L2, ivf, pq)),
        Arguments.of(IndexType.IVF_RQ, VectorIndexParams.ivfRq(3, (byte) 1, DistanceType.L2)),
        Arguments.of(
            IndexType.IVF_HNSW_SQ,
            VectorIndexParams.withIvfHnswSqParams(DistanceType.Cosine, ivf, hnsw, sq)),
        Arguments.of(
            IndexType.IVF_HNSW_PQ,
            VectorIndexParams.withIvfHnswPqParams(DistanceType.L2, ivf, hnsw, pq)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("indexTypes")
  void theRebuildKeepsTypeMetricParametersAndCentroids(IndexType type, VectorIndexParams params) {
    try (Dataset dataset = indexedWithDeletions(true, type, params)) {
      VectorIndex before = VectorIndex.on(dataset, "v").orElseThrow();
      Set<UUID> segments = uuids(dataset);
      Map<String, Object> built = dataset.getIndexStatistics(before.name());
      assertThat(IndexedDeletions.holdsDeletedRows(dataset, before)).isTrue();

      assertThat(IndexedDeletions.prepare(dataset, true)).isEmpty();

      VectorIndex after = VectorIndex.on(dataset, "v").orElseThrow();
      assertThat(uuids(dataset)).as("rebuilt").doesNotContainAnyElementsOf(segments);
      assertThat(after.type()).isEqualTo(type.name());
      assertThat(after.name()).isEqualTo(before.name());
      assertThat(JsonUtils.fromJson(after.detailsJson()))
          .isEqualTo(JsonUtils.fromJson(before.detailsJson()));
      Map<String, Object> statistics = dataset.getIndexStatistics(after.name());
      assertThat(IndexStatistics.partitions(statistics))
          .isEqualTo(IndexStatistics.partitions(built));
      assertThat(IndexStatistics.centroids(statistics))
          .get()
          .isEqualTo(IndexStatistics.centroids(built).orElseThrow());
      assertThat(IndexStatistics.entries(statistics)).isEqualTo(1_600);
      assertThat(IndexedDeletions.holdsDeletedRows(dataset, after)).isFalse();
    }
  }

  /**
   * lance-core 7.0.0 builds IVF_FLAT for the hamming distance over binary vectors, which no search
   * here uses; an index another client built so is rebuilt all the same.
   */
  @Test
  void aHammingIndexOfBinaryVectorsIsRebuiltForItsDistance() {
    Schema schema =
        new Schema(
            List.of(
                Field.notNullable("id", new ArrowType.Int(64, true)),
                new Field(
                    "v",
                    FieldType.notNullable(new ArrowType.FixedSizeList(8)),
                    List.of(Field.notNullable("item", new ArrowType.Int(8, false))))));
    String uri = dir.resolve("binary").toString();
    try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator)) {
      Dataset.write()
          .allocator(allocator)
          .uri(uri)
          .schema(schema)
          .enableStableRowIds(true)
          .mode(WriteParams.WriteMode.CREATE)
          .execute()
          .close();
      root.allocateNew();
      FixedSizeListVector vectors = (FixedSizeListVector) root.getVector("v");
      for (int id = 0; id < 200; id++) {
        ((BigIntVector) root.getVector("id")).setSafe(id, id);
        vectors.setNotNull(id);
        for (int d = 0; d < 8; d++) {
          ((UInt1Vector) vectors.getDataVector()).setSafe(id * 8 + d, (id * 31 + d * 7) & 0xff);
        }
      }
      root.setRowCount(200);
      LanceTestTables.appendFragments(
          uri, Fragment.write().datasetUri(uri).allocator(allocator).data(root).execute());
    }
    try (Dataset dataset = Dataset.open(uri, allocator)) {
      VectorTables.index(
          dataset, IndexType.IVF_FLAT, VectorIndexParams.ivfFlat(2, DistanceType.Hamming));
      dataset.delete("id % 5 = 0");
      VectorIndex index = VectorIndex.on(dataset, "v").orElseThrow();
      assertThat(index.lanceMetric()).isEqualTo("HAMMING");
      assertThat(index.metric()).isEmpty();
      assertThat(IndexedDeletions.holdsDeletedRows(dataset, index)).isTrue();
      float[] centroids =
          IndexStatistics.centroids(dataset.getIndexStatistics(index.name())).orElseThrow();
      IvfBuildParams onCentroids =
          new IvfBuildParams.Builder().setNumPartitions(2).setCentroids(centroids).build();
      assertThatThrownBy(
              () ->
                  VectorTables.index(
                      dataset,
                      IndexType.IVF_FLAT,
                      new VectorIndexParams.Builder(onCentroids)
                          .setDistanceType(DistanceType.Hamming)
                          .build()))
          .hasMessageContaining("Centroids and vectors have incompatible types");
      Set<UUID> segments = uuids(dataset);

      assertThat(IndexedDeletions.prepare(dataset, true)).isEqualTo(index.fragmentIds());
      assertThat(uuids(dataset)).isEqualTo(segments);
    }
  }

  /** k-means needs a row per partition: with fewer live rows, the rebuild trains one per row. */
  @Test
  void aRebuildOverFewerRowsThanPartitionsTrainsAPartitionPerRow() {
    try (Dataset dataset =
        indexedWithDeletions(
            true, IndexType.IVF_FLAT, VectorIndexParams.ivfFlat(4, DistanceType.L2))) {
      dataset.delete("id >= 3");
      dataset.checkoutLatest();

      assertThat(IndexedDeletions.prepare(dataset, true)).isEmpty();

      VectorIndex index = VectorIndex.on(dataset, "v").orElseThrow();
      Map<String, Object> statistics = dataset.getIndexStatistics(index.name());
      assertThat(IndexStatistics.partitions(statistics)).isEqualTo(2);
      assertThat(IndexStatistics.entries(statistics)).isEqualTo(2);
      assertThat(search(dataset, TABLES.vector(0), 10)).containsExactlyInAnyOrder(1L, 2L);
    }
  }

  @Test
  void withoutARebuildTheIndexedFragmentsWithDeletionsAreKept() {
    try (Dataset dataset =
        indexedWithDeletions(
            true, IndexType.IVF_FLAT, VectorIndexParams.ivfFlat(4, DistanceType.L2))) {
      TABLES.append(dataset.uri(), 2_000, 100);
      TABLES.append(dataset.uri(), 2_100, 100);
      dataset.checkoutLatest();
      dataset.delete("id = 2001"); // not indexed: its deletion is nothing the index holds
      dataset.checkoutLatest();
      Set<UUID> built = uuids(dataset);
      Set<Integer> indexed = Set.copyOf(VectorIndex.on(dataset, "v").orElseThrow().fragmentIds());

      assertThat(IndexedDeletions.prepare(dataset, false)).isEqualTo(indexed).hasSize(4);
      assertThat(uuids(dataset)).isEqualTo(built);
    }
  }

  @Test
  void withoutStableRowIdsNothingIsKeptOrRebuilt() {
    try (Dataset dataset =
        indexedWithDeletions(
            false, IndexType.IVF_FLAT, VectorIndexParams.ivfFlat(4, DistanceType.L2))) {
      Set<UUID> built = uuids(dataset);
      VectorIndex index = VectorIndex.on(dataset, "v").orElseThrow();
      assertThat(IndexedDeletions.holdsDeletedRows(dataset, index)).isFalse();
      assertThat(IndexedDeletions.prepare(dataset, true)).isEmpty();
      assertThat(uuids(dataset)).isEqualTo(built);
      assertThat(dataset.getFragments())
          .allSatisfy(f -> assertThat(f.metadata().getDeletionFile()).isNotNull());
    }
  }

  private static Set<UUID> uuids(Dataset dataset) {
    return dataset.describeIndices().stream()
        .flatMap(d -> d.getSegments().stream())
        .map(Index::uuid)
        .collect(Collectors.toSet());
  }
}
