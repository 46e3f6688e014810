package dev.flinklance.table.testing;

import dev.flinklance.access.TableRef;
import dev.flinklance.index.VectorMetric;
import dev.flinklance.testing.Neighbours;
import dev.flinklance.testing.Neighbours.Hit;
import dev.flinklance.testing.TestTables;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.LongFunction;
import java.util.stream.IntStream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.Row;
import org.lance.Dataset;
import org.lance.index.DistanceType;
import org.lance.ipc.Query;

/**
 * Vectors for search tests: clustered data (Gaussian clusters around random centres), tables of
 * them written through plain Lance, and the exact nearest neighbours by brute force.
 */
public final class VectorData {
  /** The docs tables: id, category ("c" + id % 3 unless given), embedding. */
  public static final RowType DOCS =
      (RowType)
          DataTypes.ROW(
                  DataTypes.FIELD("id", DataTypes.BIGINT()),
                  DataTypes.FIELD("category", DataTypes.STRING()),
                  DataTypes.FIELD("embedding", DataTypes.ARRAY(DataTypes.FLOAT().notNull())))
              .getLogicalType();

  /** The queries tables: qid, vec (a plain list column). */
  public static final RowType QUERIES =
      (RowType)
          DataTypes.ROW(
                  DataTypes.FIELD("qid", DataTypes.BIGINT()),
                  DataTypes.FIELD("vec", DataTypes.ARRAY(DataTypes.FLOAT().notNull())))
              .getLogicalType();

  /** Hits per query id, nearest first, from a search's rows (qid, id, score). */
  public static Map<Long, List<Hit>> hitsByQuery(List<Row> rows) {
    Map<Long, List<Hit>> hits = new HashMap<>();
    for (Row row : rows) {
      hits.computeIfAbsent((Long) row.getField(0), q -> new ArrayList<>())
          .add(new Hit((Long) row.getField(1), (Double) row.getField(2)));
    }
    hits.values().forEach(list -> list.sort(Comparator.comparingDouble(Hit::distance)));
    return hits;
  }

  private VectorData() {}

  /**
   * {@code count} vectors around {@code clusters} centres (standard normal coordinates, spread 0.3
   * around the centre), the same for the same seed.
   */
  public static float[][] clustered(int count, int dimension, int clusters, long seed) {
    Random random = new Random(seed);
    float[][] centres = new float[clusters][dimension];
    for (float[] centre : centres) {
      for (int d = 0; d < dimension; d++) {
        centre[d] = (float) random.nextGaussian();
      }
    }
    Random points = new Random(seed * 31 + 7);
    float[][] vectors = new float[count][dimension];
    for (float[] vector : vectors) {
      float[] centre = centres[points.nextInt(clusters)];
      for (int d = 0; d < dimension; d++) {
        vector[d] = centre[d] + (float) points.nextGaussian() * 0.3f;
      }
    }
    return vectors;
  }

  /** A docs table holding {@code vectors} as rows 0..n-1, one version, in fragments. */
  public static void writeDocs(String uri, float[][] vectors, int rowsPerFragment) {
    writeDocs(uri, vectors, rowsPerFragment, id -> "c" + id % 3);
  }

  /** A docs table as above, with the given category of each id. */
  public static void writeDocs(
      String uri, float[][] vectors, int rowsPerFragment, LongFunction<String> category) {
    TestTables.create(uri, DOCS, Map.of("embedding", vectors[0].length));
    appendDocs(uri, vectors, 0, rowsPerFragment, category);
  }

  /** Appends {@code vectors} as rows firstId, firstId + 1, ... (one table version). */
  public static void appendDocs(String uri, float[][] vectors, long firstId, int rowsPerFragment) {
    appendDocs(uri, vectors, firstId, rowsPerFragment, id -> "c" + id % 3);
  }

  private static void appendDocs(
      String uri,
      float[][] vectors,
      long firstId,
      int rowsPerFragment,
      LongFunction<String> category) {
    List<RowData> rows = new ArrayList<>(vectors.length);
    for (int i = 0; i < vectors.length; i++) {
      long id = firstId + i;
      rows.add(
          GenericRowData.of(
              id, StringData.fromString(category.apply(id)), new GenericArrayData(vectors[i])));
    }
    TestTables.append(uri, DOCS, rows, rowsPerFragment);
  }

  /** A queries table: query i has qid i. */
  public static void writeQueries(String uri, float[][] queries) {
    List<RowData> rows = new ArrayList<>(queries.length);
    for (int i = 0; i < queries.length; i++) {
      rows.add(GenericRowData.of((long) i, new GenericArrayData(queries[i])));
    }
    TestTables.write(uri, QUERIES, rows, Math.max(1, rows.size()));
  }

  /** Lance's distance of {@code vector} from {@code query} (float arithmetic, as Lance). */
  public static double distance(VectorMetric metric, float[] query, float[] vector) {
    double dot = 0;
    double squared = 0;
    double queryNorm = 0;
    double vectorNorm = 0;
    for (int d = 0; d < query.length; d++) {
      double diff = query[d] - vector[d];
      squared += diff * diff;
      dot += (double) query[d] * vector[d];
      queryNorm += (double) query[d] * query[d];
      vectorNorm += (double) vector[d] * vector[d];
    }
    return switch (metric) {
      case L2 -> squared;
      case COSINE -> 1 - dot / Math.sqrt(queryNorm * vectorNorm);
      case DOT -> 1 - dot;
    };
  }

  /** The exact {@code k} nearest rows (id = index in {@code vectors}), nearest first. */
  public static List<Hit> nearest(VectorMetric metric, float[][] vectors, float[] query, int k) {
    return IntStream.range(0, vectors.length)
        .mapToObj(i -> new Hit(i, distance(metric, query, vectors[i])))
        .sorted(Comparator.comparingDouble(Hit::distance))
        .limit(k)
        .toList();
  }

  /** The fraction of the true neighbours found, over all queries. */
  public static double recall(List<List<Long>> truth, List<List<Long>> found) {
    int hits = 0;
    int total = 0;
    for (int q = 0; q < truth.size(); q++) {
      List<Long> expected = truth.get(q);
      hits += (int) found.get(q).stream().filter(expected::contains).count();
      total += expected.size();
    }
    return hits / (double) total;
  }

  /** lance-core's nearest-neighbour query on the docs tables' embedding column, l2. */
  public static Query l2Query(float[] key, int k, int nprobes, int refineFactor) {
    return new Query.Builder()
        .setColumn("embedding")
        .setKey(key)
        .setK(k)
        .setNprobes(nprobes)
        .setRefineFactor(refineFactor)
        .setDistanceType(DistanceType.L2)
        .build();
  }

  /**
   * The {@code k} nearest rows by lance-core's own {@code nearest} query on the latest version, as
   * (id, distance), nearest first.
   */
  public static List<Hit> lanceNearest(String uri, Query query) {
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = new TableRef(uri, Map.of()).open(allocator)) {
      return lanceNearest(dataset, query);
    }
  }

  /** The rows lance-core's own {@code nearest} query finds in an open dataset, nearest first. */
  public static List<Hit> lanceNearest(Dataset dataset, Query query) {
    return Neighbours.nearest(dataset, query);
  }
}
