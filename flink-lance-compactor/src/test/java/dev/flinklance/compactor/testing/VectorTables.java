package dev.flinklance.compactor.testing;

import dev.flinklance.testing.Neighbours;
import dev.flinklance.testing.Neighbours.Hit;
import java.util.Collection;
import java.util.Comparator;
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
import org.lance.Dataset;
import org.lance.Fragment;
import org.lance.FragmentMetadata;
import org.lance.WriteParams;
import org.lance.index.IndexParams;
import org.lance.index.IndexType;
import org.lance.index.vector.VectorIndexParams;
import org.lance.ipc.Query;

/**
 * Tables of an {@code id} and an 8-dimension vector {@code v} whose value follows from the id, so
 * that the true nearest neighbours of any point over any set of live ids can be computed here.
 */
public final class VectorTables {
  public static final int DIM = 8;
  public static final String INDEX = "v_idx";
  public static final Schema SCHEMA =
      new Schema(
          List.of(
              Field.notNullable("id", new ArrowType.Int(64, true)),
              new Field(
                  "v",
                  FieldType.notNullable(new ArrowType.FixedSizeList(DIM)),
                  List.of(
                      Field.notNullable(
                          "item", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE))))));

  private VectorTables() {}

  public static void create(String uri, boolean stableRowIds) {
    try (BufferAllocator allocator = new RootAllocator();
        Dataset ignored =
            Dataset.write()
                .allocator(allocator)
                .uri(uri)
                .schema(SCHEMA)
                .enableStableRowIds(stableRowIds)
                .mode(WriteParams.WriteMode.CREATE)
                .execute()) {
      // created
    }
  }

  /** Uncommitted fragment files of rows {@code first .. first + count - 1}. */
  public static List<FragmentMetadata> write(String uri, long first, int count) {
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
      return Fragment.write().datasetUri(uri).allocator(allocator).data(root).execute();
    }
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

  /** Row {@code id}'s vector: random, the same for the same id. */
  public static float[] vector(long id) {
    Random random = new Random(id);
    float[] vector = new float[DIM];
    for (int d = 0; d < DIM; d++) {
      vector[d] = (float) random.nextGaussian();
    }
    return vector;
  }

  /** Brute force: the {@code k} ids of {@code live} nearest to {@code key} (L2), nearest first. */
  public static List<Long> nearest(Collection<Long> live, float[] key, int k) {
    return live.stream()
        .sorted(Comparator.comparingDouble(id -> squaredDistance(vector(id), key)))
        .limit(k)
        .toList();
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

  private static double squaredDistance(float[] a, float[] b) {
    double sum = 0;
    for (int d = 0; d < a.length; d++) {
      double diff = a[d] - b[d];
      sum += diff * diff;
    }
    return sum;
  }
}
