package dev.flinklance.table.vector;

import static dev.flinklance.table.testing.Sql.exec;
import static dev.flinklance.table.testing.Sql.query;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flinklance.table.testing.Sql;
import dev.flinklance.table.testing.VectorData;
import dev.flinklance.testing.TestClusters;
import java.nio.file.Path;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Flink 1.20 has no {@code VECTOR_SEARCH} (FLIP-540 is Flink 2.2+): a query using it fails at
 * planning, in Flink's validator (which takes the call for a scalar subquery), while the same table
 * reads.
 */
class NoVectorSearchITCase {
  @RegisterExtension static final MiniClusterExtension CLUSTER = TestClusters.withoutRestarts();

  @TempDir Path dir;

  @Test
  void vectorSearchFailsAtPlanningAndTheTableStillReads() {
    String docs = dir.resolve("docs").toString();
    VectorData.writeDocs(docs, VectorData.clustered(20, 8, 2, 5), 20);
    TableEnvironment env = Sql.batch();
    exec(
        env,
        "CREATE TABLE docs (id BIGINT, category STRING, embedding ARRAY<FLOAT>)"
            + " WITH ('connector' = 'lance', 'path' = '"
            + docs
            + "')");

    assertThatThrownBy(
            () ->
                query(
                    env,
                    "SELECT id FROM TABLE(VECTOR_SEARCH(TABLE docs, DESCRIPTOR(embedding),"
                        + " ARRAY[CAST(0.5 AS FLOAT), 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5], 3))"))
        .isInstanceOf(ValidationException.class)
        .hasMessageContaining("SQL validation failed")
        .hasMessageContaining("$SCALAR_QUERY");
    assertThat(query(env, "SELECT COUNT(*) FROM docs")).hasSize(1);
  }
}
