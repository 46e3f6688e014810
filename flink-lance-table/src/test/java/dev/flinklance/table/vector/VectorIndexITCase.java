package dev.flinklance.table.vector;

import static dev.flinklance.table.testing.Sql.exec;
import static dev.flinklance.table.testing.Sql.query;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flinklance.access.TableRef;
import dev.flinklance.index.VectorIndex;
import dev.flinklance.index.VectorMetric;
import dev.flinklance.index.vector.VectorIndexType;
import dev.flinklance.table.testing.Sql;
import dev.flinklance.table.testing.VectorData;
import dev.flinklance.table.vector.index.LanceVectorIndex;
import dev.flinklance.testing.Neighbours.Hit;
import dev.flinklance.testing.TestClusters;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.lance.Dataset;

/**
 * Searching with vector indexes built by {@link LanceVectorIndex} (what the catalog's procedure
 * runs; VectorIndexProcedureITCase checks the procedure on every Flink line): every type builds and
 * is searched; VECTOR_SEARCH uses the index, with the index's metric by default; an IVF_FLAT index
 * probed in every partition returns exactly the brute-force neighbours.
 */
class VectorIndexITCase {
  private static final int DIM = 8;
  private static final float[][] DOCS = VectorData.clustered(600, DIM, 4, 3);
  private static final float[] QUERY = VectorData.clustered(1, DIM, 4, 4)[0];

  @RegisterExtension static final MiniClusterExtension CLUSTER = TestClusters.withoutRestarts();

  @TempDir Path dir;
  private String warehouse;
  private String docs;

  @BeforeEach
  void setUp() {
    warehouse = dir.resolve("lake").toString();
    docs = warehouse + "/db/docs.lance";
  }

  private TableEnvironment catalog() {
    TableEnvironment env = Sql.streaming(java.time.Duration.ofSeconds(10));
    exec(
        env,
        "CREATE CATALOG lake WITH ('type' = 'lance', 'warehouse' = 'file://" + warehouse + "')");
    exec(env, "USE CATALOG lake");
    exec(env, "CREATE DATABASE IF NOT EXISTS db");
    return env;
  }

  private TableEnvironment catalogWithDocs(String options) {
    TableEnvironment env = catalog();
    exec(
        env,
        "CREATE TABLE db.docs (id BIGINT, category STRING, embedding ARRAY<FLOAT NOT NULL>) WITH"
            + " ('vector-columns' = 'embedding:8'"
            + options
            + ")");
    VectorData.appendDocs(docs, DOCS, 0, 200);
    return env;
  }

  private static List<Hit> search(TableEnvironment env, String config) {
    return query(
            env,
            "SELECT id, score FROM TABLE(VECTOR_SEARCH(TABLE db.docs, DESCRIPTOR(embedding), "
                + arrayLiteral(QUERY)
                + ", 10"
                + config
                + "))")
        .stream()
        .map(row -> new Hit((Long) row.getField(0), (Double) row.getField(1)))
        .sorted(Comparator.comparingDouble(Hit::distance))
        .toList();
  }

  private static String arrayLiteral(float[] vector) {
    StringBuilder literal = new StringBuilder("ARRAY[");
    for (int i = 0; i < vector.length; i++) {
      literal.append(i == 0 ? "" : ", ").append("CAST(").append(vector[i]).append(" AS FLOAT)");
    }
    return literal.append("]").toString();
  }

  private static List<Long> bruteForceIds(VectorMetric metric) {
    return VectorData.nearest(metric, DOCS, QUERY, 10).stream().map(Hit::id).toList();
  }

  private List<VectorIndex> indexes() {
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = new TableRef(docs, Map.of()).open(allocator)) {
      return VectorIndex.of(dataset);
    }
  }

  @Test
  void searchUsesTheIndexMetricByDefault() {
    TableEnvironment env = catalogWithDocs("");
    LanceVectorIndex.create(
        new TableRef(docs, Map.of()),
        "embedding",
        "ivf_flat",
        Map.of("num-partitions", "4", "metric", "cosine"));
    assertThat(indexes())
        .singleElement()
        .extracting(VectorIndex::metric)
        .isEqualTo(Optional.of(VectorMetric.COSINE));

    // the index's metric by default; every partition probed: IVF_FLAT is then exact
    List<Hit> hits = search(env, ", MAP['vector-search.nprobes', '4']");
    assertThat(hits)
        .extracting(Hit::id)
        .containsExactlyElementsOf(bruteForceIds(VectorMetric.COSINE));

    assertThatThrownBy(() -> search(env, ", MAP['vector-search.metric', 'l2']"))
        .hasStackTraceContaining("column 'embedding' has the IVF_FLAT index 'embedding_idx'")
        .hasStackTraceContaining("built for the COSINE metric, but 'vector-search.metric' is l2");
  }

  @Test
  void everyIndexTypeBuildsAndIsSearched() {
    TableEnvironment env = catalogWithDocs("");
    TableRef table = new TableRef(docs, Map.of());
    for (VectorIndexType type : VectorIndexType.values()) {
      Map<String, String> options =
          type.name().endsWith("PQ")
              ? Map.of("num-partitions", "4", "num-sub-vectors", "2")
              : Map.of("num-partitions", "4");
      LanceVectorIndex.Created created =
          LanceVectorIndex.create(table, "embedding", type.name(), options);
      assertThat(created.type()).isEqualTo(type.name());
      assertThat(created.rowsIndexed()).isEqualTo(DOCS.length);
      assertThat(indexes()).singleElement().extracting(VectorIndex::type).isEqualTo(type.name());

      // every partition probed and 10 x 60 candidates (every row) refined by exact distance: any
      // index type must then return the brute-force neighbours, however its quantizer trained on
      // its random sample (a recall bar with fewer candidates failed for RaBitQ now and then)
      List<Hit> hits =
          search(env, ", MAP['vector-search.nprobes', '4', 'vector-search.refine-factor', '60']");
      assertThat(hits)
          .as(type.name())
          .extracting(Hit::id)
          .containsExactlyElementsOf(bruteForceIds(VectorMetric.L2));
    }
  }
}
