package dev.flinklance.table.bench;

import dev.flinklance.access.TableRef;
import dev.flinklance.index.VectorIndex;
import dev.flinklance.table.testing.VectorData;
import dev.flinklance.table.vector.index.LanceVectorIndex;
import dev.flinklance.testing.Neighbours.Hit;
import dev.flinklance.testing.TestTables;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.lance.Dataset;

/**
 * Queries per second of {@code VECTOR_SEARCH} against lance-core's own {@code nearest} in a plain
 * loop on one thread, in one JVM and one run; prints, asserts nothing.
 *
 * <p>Data: {@code rows} clustered 128-dimension vectors (100 Gaussian clusters, as in the recall
 * test) in fragments of 10,000 rows, written twice: once with an IVF_PQ index (64 partitions, 32
 * sub-vectors, 8 bits, 10 k-means iterations), once without an index (Lance searches exactly).
 * {@code queries} query vectors from the same distribution; top 10, l2, nprobes 20, refine factor
 * 20 everywhere.
 *
 * <ol>
 *   <li>baseline: one open dataset, {@code Dataset.newScan} with a {@code nearest} query for each
 *       query vector in turn on one thread, reading id and distance;
 *   <li>SQL: {@code SELECT qid, id FROM queries, LATERAL TABLE(VECTOR_SEARCH(TABLE docs,
 *       DESCRIPTOR(embedding), queries.vec, 10))} in streaming mode over the bounded queries table
 *       (8 fragments), at parallelism 1 and 2, with the sync provider and the async one ({@code
 *       MAP['async', 'true']}); the job's net runtime (deployment included), rows collected to the
 *       client.
 * </ol>
 *
 * The same job without the search ({@code SELECT qid, qid FROM queries}: deployment, reading the
 * queries, collecting) is timed too, as the fixed cost of a job. Per task: queries/s divided by the
 * parallelism; ratio: per task over the baseline; net ratio: the same with the fixed cost taken off
 * the job's time. recall@10 against the exact search's results from a first baseline run over the
 * unindexed table (exact search equals brute force, see VectorSearchITCase). The async provider
 * searches with min(10 queries in flight, processors) threads per task.
 *
 * <p>After a warm-up round, {@code repetitions} rounds run every measurement in turn; the median of
 * each is printed. Usage: {@code VectorBenchmark [rows=50000] [queries=1000] [repetitions=2]
 * [table-dir]} (tables left in table-dir by an earlier run are reused).
 */
public final class VectorBenchmark {
  private static final int DIMENSION = 128;
  private static final int CLUSTERS = 100;
  private static final int ROWS_PER_FRAGMENT = 10_000;
  private static final int K = 10;
  private static final int NPROBES = 20;
  private static final int REFINE = 20;

  private VectorBenchmark() {}

  public static void main(String[] args) throws Exception {
    int rows = args.length > 0 ? Integer.parseInt(args[0]) : 50_000;
    int queries = args.length > 1 ? Integer.parseInt(args[1]) : 1_000;
    int repetitions = args.length > 2 ? Integer.parseInt(args[2]) : 2;
    Path dir = args.length > 3 ? Path.of(args[3]) : Files.createTempDirectory("lance-vector-bench");
    String indexed = uri(dir, "docs-ivf-pq-" + rows);
    String exact = uri(dir, "docs-exact-" + rows);
    String queryTable = uri(dir, "queries-" + queries);
    float[][] queryVectors = VectorData.clustered(queries, DIMENSION, CLUSTERS, 12);
    ensureTables(indexed, exact, queryTable, rows, queryVectors);

    BenchCluster.run(
        () -> {
          System.out.printf(
              "flink-lance vector search benchmark: %,d clustered %d-dim vectors, %,d queries, top"
                  + " %d, l2, %d repetitions, median reported, %d processors%n",
              rows, DIMENSION, queries, K, repetitions, Runtime.getRuntime().availableProcessors());
          Map<Long, List<Long>> truth = new HashMap<>();
          plainLoop(exact, queryVectors, truth);
          run("IVF_PQ index", indexed, queryTable, queryVectors, truth, repetitions);
          run("no index (exact search)", exact, queryTable, queryVectors, truth, repetitions);
        });
  }

  private static String uri(Path dir, String name) {
    return dir.resolve(name + ".lance").toAbsolutePath().toString();
  }

  private static void run(
      String title,
      String docs,
      String queryTable,
      float[][] queryVectors,
      Map<Long, List<Long>> truth,
      int repetitions)
      throws Exception {
    Map<String, Map<Long, List<Long>>> found = new LinkedHashMap<>();
    Map<String, Rounds.Measurement> measurements = new LinkedHashMap<>();
    String loop = "lance-core nearest, plain loop, 1 thread";
    measurements.put(loop, () -> plainLoop(docs, queryVectors, results(found, loop)));
    for (int parallelism : List.of(1, 2)) {
      measurements.put(
          fixedCost(parallelism),
          () ->
              sql(docs, queryTable, parallelism, "SELECT qid, qid FROM queries", new HashMap<>()));
    }
    for (boolean async : List.of(false, true)) {
      for (int parallelism : List.of(1, 2)) {
        String what =
            String.format("VECTOR_SEARCH %s, p=%d", async ? "async" : "sync", parallelism);
        String search =
            String.format(
                "SELECT qid, id FROM queries, LATERAL TABLE(VECTOR_SEARCH(TABLE docs,"
                    + " DESCRIPTOR(embedding), queries.vec, %d%s))",
                K, async ? ", MAP['async', 'true']" : "");
        measurements.put(
            what, () -> sql(docs, queryTable, parallelism, search, results(found, what)));
      }
    }
    Map<String, Double> seconds = Rounds.medians(measurements, repetitions);
    int queries = queryVectors.length;
    double baseline = queries / seconds.get(loop);
    System.out.printf(
        "%s:%n  %-40s %9s %9s %6s %9s %9s%n",
        title, "", "queries/s", "per task", "ratio", "net ratio", "recall@10");
    seconds.forEach(
        (what, time) -> {
          int parallelism = what.endsWith("p=2") ? 2 : 1;
          if (what.startsWith("VECTOR_SEARCH") || what.equals(loop)) {
            double perTask = queries / time / parallelism;
            double net = what.equals(loop) ? time : time - seconds.get(fixedCost(parallelism));
            System.out.printf(
                "  %-40s %,9.0f %,9.0f %6.2f %9.2f %9.3f%n",
                what,
                queries / time,
                perTask,
                perTask / baseline,
                queries / net / parallelism / baseline,
                recall(truth, found.get(what)));
          } else {
            System.out.printf("  %-40s %9.2f s%n", what, time);
          }
        });
  }

  /** The name of the same job without the search: deployment, reading queries, collecting. */
  private static String fixedCost(int parallelism) {
    return "fixed cost (job without search), p=" + parallelism;
  }

  /** A fresh map for one run's results, kept under the measurement's name. */
  private static Map<Long, List<Long>> results(
      Map<String, Map<Long, List<Long>>> found, String what) {
    Map<Long, List<Long>> results = new HashMap<>();
    found.put(what, results);
    return results;
  }

  private static double recall(Map<Long, List<Long>> truth, Map<Long, List<Long>> found) {
    List<List<Long>> expected = new ArrayList<>();
    List<List<Long>> searched = new ArrayList<>();
    truth.forEach(
        (query, ids) -> {
          expected.add(ids);
          searched.add(found.getOrDefault(query, List.of()));
        });
    return VectorData.recall(expected, searched);
  }

  /** Searches every query vector in turn; the ids found go into {@code found} by query number. */
  private static double plainLoop(String uri, float[][] queries, Map<Long, List<Long>> found)
      throws Exception {
    long start = System.nanoTime();
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = new TableRef(uri, Map.of()).open(allocator)) {
      for (int q = 0; q < queries.length; q++) {
        List<Long> ids = new ArrayList<>(K);
        for (Hit hit :
            VectorData.lanceNearest(dataset, VectorData.l2Query(queries[q], K, NPROBES, REFINE))) {
          ids.add(hit.id());
        }
        found.put((long) q, ids);
      }
    }
    return (System.nanoTime() - start) / 1e9;
  }

  /**
   * Runs {@code select} (query id, doc id) over the tables; the doc ids found go into {@code found}
   * by query id.
   */
  private static double sql(
      String docs, String queryTable, int parallelism, String select, Map<Long, List<Long>> found)
      throws Exception {
    TableEnvironment env = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
    env.getConfig().set("table.exec.resource.default-parallelism", Integer.toString(parallelism));
    env.executeSql(
        String.format(
            "CREATE TABLE docs (id BIGINT, category STRING, embedding ARRAY<FLOAT NOT NULL>)"
                + " WITH ('connector' = 'lance', 'path' = '%s', 'vector-search.nprobes' = '%d',"
                + " 'vector-search.refine-factor' = '%d')",
            docs, NPROBES, REFINE));
    env.executeSql(
        String.format(
            "CREATE TABLE queries (qid BIGINT, vec ARRAY<FLOAT NOT NULL>) WITH ('connector' ="
                + " 'lance', 'path' = '%s')",
            queryTable));
    TableResult result = env.executeSql(select);
    try (CloseableIterator<Row> rows = result.collect()) {
      while (rows.hasNext()) {
        Row row = rows.next();
        found
            .computeIfAbsent((Long) row.getField(0), q -> new ArrayList<>())
            .add((Long) row.getField(1));
      }
    }
    JobExecutionResult job = result.getJobClient().orElseThrow().getJobExecutionResult().get();
    return job.getNetRuntime() / 1e3;
  }

  /** Writes the tables and builds the index unless complete ones are there. */
  private static void ensureTables(
      String indexed, String exact, String queryTable, int rows, float[][] queries) {
    float[][] vectors = null;
    for (String docs : List.of(indexed, exact)) {
      if (!exists(docs, docs.equals(indexed))) {
        if (vectors == null) {
          vectors = VectorData.clustered(rows, DIMENSION, CLUSTERS, 11);
        }
        System.out.printf("writing %,d vectors to %s ...%n", rows, docs);
        VectorData.writeDocs(docs, vectors, ROWS_PER_FRAGMENT);
        if (docs.equals(indexed)) {
          System.out.println(
              LanceVectorIndex.create(
                  new TableRef(docs, Map.of()),
                  "embedding",
                  "IVF_PQ",
                  Map.of("num-partitions", "64", "num-sub-vectors", "32", "max-iterations", "10")));
        }
      }
    }
    if (!exists(queryTable, false)) {
      List<RowData> rowsOfQueries = new ArrayList<>(queries.length);
      for (int i = 0; i < queries.length; i++) {
        rowsOfQueries.add(GenericRowData.of((long) i, new GenericArrayData(queries[i])));
      }
      // eight fragments, so that both source tasks at parallelism 2 get queries
      TestTables.create(queryTable, VectorData.QUERIES, Map.of());
      TestTables.append(
          queryTable, VectorData.QUERIES, rowsOfQueries, Math.max(1, (queries.length + 7) / 8));
    }
  }

  /** Whether an earlier run left the table there, with its index if it needs one. */
  private static boolean exists(String uri, boolean indexed) {
    try (BufferAllocator allocator = new RootAllocator()) {
      Optional<Dataset> existing = new TableRef(uri, Map.of()).openIfExists(allocator);
      if (existing.isEmpty()) {
        return false;
      }
      try (Dataset dataset = existing.get()) {
        if (indexed && VectorIndex.on(dataset, "embedding").isEmpty()) {
          throw new IllegalStateException(uri + " exists without its index; remove it");
        }
        return true;
      }
    }
  }
}
