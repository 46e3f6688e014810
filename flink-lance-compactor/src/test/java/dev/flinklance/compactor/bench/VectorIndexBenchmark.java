package dev.flinklance.compactor.bench;

import dev.flinklance.compactor.LanceCompactionJob;
import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.Neighbours;
import dev.flinklance.testing.Neighbours.Hit;
import dev.flinklance.testing.VectorTables;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.IntStream;
import java.util.stream.LongStream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.lance.Dataset;
import org.lance.FragmentMetadata;
import org.lance.index.DistanceType;
import org.lance.index.IndexType;
import org.lance.index.vector.HnswBuildParams;
import org.lance.index.vector.IvfBuildParams;
import org.lance.index.vector.PQBuildParams;
import org.lance.index.vector.SQBuildParams;
import org.lance.index.vector.VectorIndexParams;
import org.lance.ipc.Query;

/**
 * Vector search after a compaction pass over deleted rows of a stable-row-id table: recall@10
 * against brute force over the live rows before the pass, after Lance's own {@code Dataset.compact}
 * (which materialises the deletions the way a pass did before it rebuilt such indexes), and after
 * {@code LanceCompactionJob --once}, with the pass's duration (its rebuild of the index included)
 * next to the index's first build. Prints; asserts nothing. Run with {@code bin/bench-compaction
 * vector}.
 *
 * <p>Arguments: table sizes in rows (default 20000 200000).
 */
public final class VectorIndexBenchmark {
  private static final int DIMENSION = 128;
  private static final int FRAGMENTS = 8;
  private static final int CLUSTERS = 64;
  private static final int QUERIES = 100;
  private static final int K = 10;
  private static final String DELETED = "id % 8 = 3";

  /** An index type and the search parameters it is measured with. */
  private record Arm(String label, IndexType type, int nprobes, int refine, int ef) {}

  private VectorIndexBenchmark() {}

  public static void main(String[] args) throws Exception {
    int[] sizes =
        args.length > 0
            ? Arrays.stream(args).mapToInt(Integer::parseInt).toArray()
            : new int[] {20_000, 200_000};
    System.out.printf(
        "Stable-row-id table of %d fragments, %d-dim vectors around %d centres, %s deleted;"
            + " recall@%d of %d searches near the centres, against brute force over the live"
            + " rows%n",
        FRAGMENTS, DIMENSION, CLUSTERS, DELETED, K, QUERIES);
    System.out.printf(
        "  %9s  %-32s %10s %8s %18s %10s %8s%n",
        "rows", "index (search)", "build ms", "before", "Dataset.compact", "pass ms", "after");
    Path dir = Files.createTempDirectory("lance-vector-bench");
    try {
      // the first pass of a JVM also starts Flink's local environment: keep that out of the times
      String warmUp = dir.resolve("warm-up").toString();
      VectorTables.SMALL.create(warmUp, true);
      compactOnce(warmUp);
      long start = System.nanoTime();
      compactOnce(warmUp);
      System.out.printf(
          "  a pass over an empty table takes %,d ms here (the local Flink job)%n",
          (System.nanoTime() - start) / 1_000_000);
      for (int rows : sizes) {
        measure(dir, rows);
      }
    } finally {
      BenchFiles.delete(dir);
    }
  }

  private static void measure(Path dir, int rows) throws Exception {
    float[][] data = new float[rows][];
    for (int id = 0; id < rows; id++) {
      data[id] = clustered(id);
    }
    VectorTables tables = new VectorTables(DIMENSION, id -> data[(int) id]);
    int partitions = (int) Math.round(Math.sqrt(rows));
    float[][] queries =
        IntStream.range(0, QUERIES).mapToObj(q -> clustered(-1 - q)).toArray(float[][]::new);
    List<Long> live = LongStream.range(0, rows).filter(id -> id % 8 != 3).boxed().toList();
    List<List<Long>> exact = new ArrayList<>();
    for (float[] query : queries) {
      exact.add(tables.nearest(live, query, K));
    }
    for (Arm arm :
        List.of(
            new Arm("IVF_FLAT (every partition)", IndexType.IVF_FLAT, partitions, 0, 0),
            new Arm("IVF_PQ (nprobes 20, refine 20)", IndexType.IVF_PQ, 20, 20, 0),
            new Arm("IVF_HNSW_SQ (nprobes 20, ef 100)", IndexType.IVF_HNSW_SQ, 20, 0, 100))) {
      String table = dir.resolve(rows + "-" + arm.type()).toString();
      tables.create(table, true);
      List<FragmentMetadata> fragments = new ArrayList<>();
      for (int first = 0; first < rows; first += rows / FRAGMENTS) {
        fragments.addAll(tables.write(table, first, Math.min(rows / FRAGMENTS, rows - first)));
      }
      LanceTestTables.appendFragments(table, fragments);
      long buildMs;
      try (BufferAllocator allocator = new RootAllocator();
          Dataset dataset = Dataset.open(table, allocator)) {
        long start = System.nanoTime();
        VectorTables.index(dataset, arm.type(), params(arm.type(), partitions));
        buildMs = (System.nanoTime() - start) / 1_000_000;
        dataset.delete(DELETED);
      }
      String before = recall(table, arm, queries, exact);
      String lanceCompacted = table + "-lance";
      BenchFiles.copy(Path.of(table), Path.of(lanceCompacted));
      try (BufferAllocator allocator = new RootAllocator();
          Dataset dataset = Dataset.open(lanceCompacted, allocator)) {
        dataset.compact();
      }
      long start = System.nanoTime();
      compactOnce(table);
      long passMs = (System.nanoTime() - start) / 1_000_000;
      System.out.printf(
          "  %,9d  %-32s %,10d %8s %18s %,10d %8s%n",
          rows,
          arm.label(),
          buildMs,
          before,
          recall(lanceCompacted, arm, queries, exact),
          passMs,
          recall(table, arm, queries, exact));
    }
  }

  private static VectorIndexParams params(IndexType type, int partitions) {
    IvfBuildParams ivf = new IvfBuildParams.Builder().setNumPartitions(partitions).build();
    return switch (type) {
      case IVF_PQ ->
          VectorIndexParams.withIvfPqParams(
              DistanceType.L2,
              ivf,
              new PQBuildParams.Builder().setNumSubVectors(DIMENSION / 8).setNumBits(8).build());
      case IVF_HNSW_SQ ->
          VectorIndexParams.withIvfHnswSqParams(
              DistanceType.L2,
              ivf,
              new HnswBuildParams.Builder().build(),
              new SQBuildParams.Builder().build());
      default -> VectorIndexParams.ivfFlat(partitions, DistanceType.L2);
    };
  }

  /** Recall@K of the queries, and how many returned fewer than K rows. */
  private static String recall(String table, Arm arm, float[][] queries, List<List<Long>> exact) {
    int found = 0;
    int short_ = 0;
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = Dataset.open(table, allocator)) {
      for (int q = 0; q < queries.length; q++) {
        Query.Builder query =
            new Query.Builder()
                .setColumn("v")
                .setKey(queries[q])
                .setK(K)
                .setNprobes(arm.nprobes())
                .setUseIndex(true);
        if (arm.refine() > 0) {
          query.setRefineFactor(arm.refine());
        }
        if (arm.ef() > 0) {
          query.setEf(arm.ef());
        }
        List<Long> hits = Neighbours.nearest(dataset, query.build()).stream().map(Hit::id).toList();
        short_ += hits.size() < K ? 1 : 0;
        found += (int) exact.get(q).stream().filter(hits::contains).count();
      }
    }
    double recall = (double) found / (queries.length * K);
    return short_ == 0
        ? String.format("%.3f", recall)
        : String.format("%.3f (%d short)", recall, short_);
  }

  /** Around one of the centres: a centre's Gaussian vector plus noise, both seeded. */
  private static float[] clustered(long id) {
    float[] centre = VectorTables.gaussian(Math.floorMod(id, CLUSTERS), DIMENSION);
    float[] noise = VectorTables.gaussian(1_000_003L * id + 7, DIMENSION);
    for (int d = 0; d < DIMENSION; d++) {
      centre[d] += 0.3f * noise[d];
    }
    return centre;
  }

  private static void compactOnce(String table) throws Exception {
    Configuration options = new Configuration();
    options.setString("path", table);
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setParallelism(2);
    LanceCompactionJob.compactOnce(env, options);
  }
}
