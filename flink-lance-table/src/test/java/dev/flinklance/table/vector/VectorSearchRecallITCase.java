package dev.flinklance.table.vector;

import static dev.flinklance.table.testing.Sql.exec;
import static dev.flinklance.table.testing.Sql.query;
import static org.assertj.core.api.Assertions.assertThat;

import dev.flinklance.access.TableRef;
import dev.flinklance.index.VectorMetric;
import dev.flinklance.table.testing.Sql;
import dev.flinklance.table.testing.VectorData;
import dev.flinklance.table.vector.index.LanceVectorIndex;
import dev.flinklance.testing.Neighbours.Hit;
import dev.flinklance.testing.TestClusters;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Recall of VECTOR_SEARCH over an IVF_PQ index: 50,000 clustered 128-dimension vectors (100
 * Gaussian clusters, spread 0.3 around standard-normal centres), 100 queries from the same
 * distribution, top 10.
 *
 * <p>Index: IVF_PQ, 64 partitions, 32 sub-vectors of 4 dimensions, 8 bits, 10 k-means iterations.
 * Search: nprobes 20, refine factor 20, l2. recall@10 against brute force must reach 0.9 (measured
 * about 0.98; without refinement PQ distances alone give about 0.4), and every result must be
 * exactly what lance-core's own {@code nearest} returns with the same parameters.
 */
class VectorSearchRecallITCase {
  private static final int ROWS = 50_000;
  private static final int DIM = 128;
  private static final int QUERIES = 100;
  private static final int K = 10;
  private static final int NPROBES = 20;
  private static final int REFINE = 20;

  @RegisterExtension static final MiniClusterExtension CLUSTER = TestClusters.withoutRestarts();

  @TempDir static Path dir;
  private static String docs;
  private static String queries;
  private static float[][] vectors;
  private static float[][] queryVectors;

  @BeforeAll
  static void buildIndexedTable() {
    docs = dir.resolve("docs").toString();
    queries = dir.resolve("queries").toString();
    vectors = VectorData.clustered(ROWS, DIM, 100, 11);
    queryVectors = VectorData.clustered(QUERIES, DIM, 100, 12);
    VectorData.writeDocs(docs, vectors, 10_000);
    VectorData.writeQueries(queries, queryVectors);
    LanceVectorIndex.create(
        new TableRef(docs, Map.of()),
        "embedding",
        "IVF_PQ",
        Map.of("num-partitions", "64", "num-sub-vectors", "32", "max-iterations", "10"));
  }

  private static Map<Long, List<Hit>> vectorSearch() {
    TableEnvironment env = Sql.streaming(Duration.ofSeconds(10));
    exec(
        env,
        "CREATE TABLE docs (id BIGINT, category STRING, embedding ARRAY<FLOAT NOT NULL>) WITH"
            + " ('connector' = 'lance', 'path' = '"
            + docs
            + "', 'vector-search.nprobes' = '"
            + NPROBES
            + "', 'vector-search.refine-factor' = '"
            + REFINE
            + "')");
    exec(
        env,
        "CREATE TABLE queries (qid BIGINT, vec ARRAY<FLOAT NOT NULL>) WITH ('connector' ="
            + " 'lance', 'path' = '"
            + queries
            + "')");
    List<Row> rows =
        query(
            env,
            "SELECT qid, id, score FROM queries, LATERAL TABLE(VECTOR_SEARCH(TABLE docs,"
                + " DESCRIPTOR(embedding), queries.vec, "
                + K
                + "))");
    return VectorData.hitsByQuery(rows);
  }

  @Test
  void recallOfTheIndexedSearchAndIdenticalResultsToLance() {
    Map<Long, List<Hit>> found = vectorSearch();
    assertThat(found).hasSize(QUERIES);
    List<List<Long>> truth = new ArrayList<>();
    List<List<Long>> searched = new ArrayList<>();
    for (int q = 0; q < QUERIES; q++) {
      List<Hit> hits = found.get((long) q);
      searched.add(hits.stream().map(Hit::id).toList());
      truth.add(
          VectorData.nearest(VectorMetric.L2, vectors, queryVectors[q], K).stream()
              .map(Hit::id)
              .toList());
      List<Hit> lance =
          VectorData.lanceNearest(docs, VectorData.l2Query(queryVectors[q], K, NPROBES, REFINE));
      assertThat(hits).as("query %d: lance-core's nearest, same parameters", q).isEqualTo(lance);
    }
    double recall = VectorData.recall(truth, searched);
    System.out.printf("VECTOR_SEARCH recall@%d over IVF_PQ: %.3f%n", K, recall);
    assertThat(recall).isGreaterThanOrEqualTo(0.9);
  }
}
