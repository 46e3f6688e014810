package dev.flinklance.testing;

import dev.flinklance.testing.Neighbours.Hit;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.function.LongFunction;
import java.util.stream.Collectors;
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
import org.lance.Dataset;
import org.lance.Fragment;
import org.lance.FragmentMetadata;
import org.lance.WriteParams;
import org.lance.index.IndexParams;
import org.lance.index.IndexType;
import org.lance.index.vector.VectorIndexParams;
import org.lance.ipc.Query;

/**
 * Tables of an {@code id} and a vector {@code v} that is a function of the id, so that the true
 * nearest neighbours of any point among any set of live ids can be computed here.
 */
public final class VectorTables {
  public static final String INDEX = "v_idx";

  /** The tests' tables: 8 dimensions, independent Gaussian components seeded by the id. */
  public static final VectorTables SMALL = new VectorTables(8, id -> gaussian(id, 8));

  private final int dimension;
  private final LongFunction<float[]> vectors;
  private final Schema schema;

  /**
   * @param vectors row {@code id}'s vector, the same for the same id
   */
  public VectorTables(int dimension, LongFunction<float[]> vectors) {
    this.dimension = dimension;
    this.vectors = vectors;
    this.schema =
        new Schema(
            List.of(
                Field.notNullable("id", new ArrowType.Int(64, true)),
                new Field(
                    "v",
                    FieldType.notNullable(new ArrowType.FixedSizeList(dimension)),
                    List.of(
                        Field.notNullable(
                            "item", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE))))));
  }

  public void create(String uri, boolean stableRowIds) {
    try (BufferAllocator allocator = new RootAllocator();
        Dataset ignored =
            Dataset.write()
                .allocator(allocator)
                .uri(uri)
                .schema(schema)
                .enableStableRowIds(stableRowIds)
                .mode(WriteParams.WriteMode.CREATE)
                .execute()) {
      // created
    }
  }

  /** Appends rows {@code first .. first + count - 1} as one fragment (one Append version). */
  public void append(String uri, long first, int count) {
    LanceTestTables.appendFragments(uri, write(uri, first, count));
  }

  /** Uncommitted fragment files of rows {@code first .. first + count - 1}. */
  public List<FragmentMetadata> write(String uri, long first, int count) {
    try (BufferAllocator allocator = new RootAllocator();
        VectorSchemaRoot root = rows(allocator, first, count)) {
      return Fragment.write().datasetUri(uri).allocator(allocator).data(root).execute();
    }
  }

  /** Gives rows {@code first .. first + count - 1} this table's vectors (a merge-insert update). */
  public void update(Dataset dataset, long first, int count) {
    try (BufferAllocator allocator = new RootAllocator();
        VectorSchemaRoot root = rows(allocator, first, count)) {
      LanceTestTables.mergeInsert(dataset, List.of("id"), root).close();
    }
    dataset.checkoutLatest();
  }

  private VectorSchemaRoot rows(BufferAllocator allocator, long first, int count) {
    VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
    root.allocateNew();
    BigIntVector ids = (BigIntVector) root.getVector("id");
    FixedSizeListVector column = (FixedSizeListVector) root.getVector("v");
    Float4Vector items = (Float4Vector) column.getDataVector();
    for (int i = 0; i < count; i++) {
      ids.setSafe(i, first + i);
      column.setNotNull(i);
      float[] vector = vectors.apply(first + i);
      for (int d = 0; d < dimension; d++) {
        items.setSafe(i * dimension + d, vector[d]);
      }
    }
    root.setRowCount(count);
    return root;
  }

  public float[] vector(long id) {
    return vectors.apply(id);
  }

  /** Brute force: the {@code k} ids of {@code live} nearest to {@code key} (L2), nearest first. */
  public List<Long> nearest(Collection<Long> live, float[] key, int k) {
    Map<Long, Double> distances =
        live.stream().collect(Collectors.toMap(id -> id, id -> squaredDistance(vector(id), key)));
    return live.stream().sorted(Comparator.comparingDouble(distances::get)).limit(k).toList();
  }

  /** Builds (or replaces) index {@link #INDEX} on {@code v}. */
  public static void index(Dataset dataset, IndexType type, VectorIndexParams params) {
    dataset.createIndex(
        List.of("v"),
        type,
        Optional.of(INDEX),
        IndexParams.builder().setVectorIndexParams(params).build(),
        true);
  }

  /** The ids lance-core's indexed search finds, probing every partition of a small index. */
  public static List<Long> search(Dataset dataset, float[] key, int k) {
    Query query =
        new Query.Builder()
            .setColumn("v")
            .setKey(key)
            .setK(k)
            .setNprobes(64)
            .setEf(Math.max(k, 64))
            .setUseIndex(true)
            .build();
    return Neighbours.nearest(dataset, query).stream().map(Hit::id).toList();
  }

  public static float[] gaussian(long seed, int dimension) {
    Random random = new Random(seed);
    float[] vector = new float[dimension];
    for (int d = 0; d < dimension; d++) {
      vector[d] = (float) random.nextGaussian();
    }
    return vector;
  }

  private static double squaredDistance(float[] a, float[] b) {
    double sum = 0;
    for (int d = 0; d < a.length; d++) {
      double diff = a[d] - b[d];
      sum += diff * diff;
    }
    return sum;
  }
}
