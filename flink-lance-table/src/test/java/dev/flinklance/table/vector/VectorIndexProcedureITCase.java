package dev.flinklance.table.vector;

import static dev.flinklance.table.testing.Sql.exec;
import static dev.flinklance.table.testing.Sql.query;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flinklance.access.TableRef;
import dev.flinklance.index.VectorIndex;
import dev.flinklance.index.VectorMetric;
import dev.flinklance.table.testing.Sql;
import dev.flinklance.table.testing.VectorData;
import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.Neighbours.Hit;
import dev.flinklance.testing.TestClusters;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.lance.Dataset;
import org.lance.index.DistanceType;
import org.lance.ipc.Query;

/**
 * The catalog's {@code sys.create_vector_index} procedure, checked without VECTOR_SEARCH (so on
 * every Flink line, 1.20 included): the index it reports is the one lance-core lists, and
 * lance-core's own nearest query on it finds exactly the brute-force neighbours.
 */
class VectorIndexProcedureITCase {
  private static final int DIM = 8;
  private static final float[][] DOCS = VectorData.clustered(600, DIM, 4, 3);
  private static final float[] QUERY = VectorData.clustered(1, DIM, 4, 4)[0];

  @RegisterExtension static final MiniClusterExtension CLUSTER = TestClusters.withoutRestarts();

  @TempDir Path dir;

  @Test
  void procedureBuildsAnIndexLanceCoreSearches() {
    String warehouse = dir.resolve("lake").toString();
    String docs = warehouse + "/db/docs.lance";
    TableEnvironment env = Sql.batch();
    exec(
        env,
        "CREATE CATALOG lake WITH ('type' = 'lance', 'warehouse' = 'file://" + warehouse + "')");
    exec(env, "USE CATALOG lake");
    exec(env, "CREATE DATABASE db");
    exec(
        env,
        "CREATE TABLE db.docs (id BIGINT, category STRING, embedding ARRAY<FLOAT NOT NULL>)"
            + " WITH ('vector-columns' = 'embedding:8')");
    VectorData.appendDocs(docs, DOCS, 0, 200);

    List<Row> created =
        query(
            env,
            "CALL lake.sys.create_vector_index('db.docs', 'embedding', 'ivf_flat',"
                + " 'num-partitions=4, metric=cosine')");

    assertThat(created)
        .singleElement()
        .satisfies(
            row -> {
              assertThat(row.getField(0)).isEqualTo("embedding_idx");
              assertThat(row.getField(1)).isEqualTo("IVF_FLAT");
              assertThat(row.getField(2)).isEqualTo("COSINE");
              assertThat(row.getField(3)).isEqualTo((long) DOCS.length);
              assertThat(row.getField(4)).isEqualTo(LanceTestTables.latestVersion(docs));
            });
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = new TableRef(docs, Map.of()).open(allocator)) {
      assertThat(VectorIndex.of(dataset))
          .singleElement()
          .satisfies(
              index -> {
                assertThat(index.column()).isEqualTo("embedding");
                assertThat(index.metric()).contains(VectorMetric.COSINE);
              });
      // every partition probed: IVF_FLAT is then exact
      Query nearest =
          new Query.Builder()
              .setColumn("embedding")
              .setKey(QUERY)
              .setK(10)
              .setNprobes(4)
              .setDistanceType(DistanceType.Cosine)
              .setUseIndex(true)
              .build();
      assertThat(VectorData.lanceNearest(dataset, nearest))
          .extracting(Hit::id)
          .containsExactlyElementsOf(
              VectorData.nearest(VectorMetric.COSINE, DOCS, QUERY, 10).stream()
                  .map(Hit::id)
                  .toList());
    }

    long version = LanceTestTables.latestVersion(docs);
    assertThatThrownBy(
            () ->
                query(
                    env,
                    "CALL lake.sys.create_vector_index('db.docs', 'category', 'ivf_flat', '')"))
        .hasStackTraceContaining("Column 'category' has type")
        .hasStackTraceContaining("not a vector of floats");
    assertThat(LanceTestTables.latestVersion(docs)).as("nothing committed").isEqualTo(version);
  }
}
