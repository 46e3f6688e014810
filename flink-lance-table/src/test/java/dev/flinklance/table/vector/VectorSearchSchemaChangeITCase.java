package dev.flinklance.table.vector;

import static dev.flinklance.table.testing.Sql.exec;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flinklance.access.TableRef;
import dev.flinklance.errors.PermanentDatasetException;
import dev.flinklance.table.testing.Sql;
import dev.flinklance.table.testing.VectorData;
import dev.flinklance.testing.TestClusters;
import dev.flinklance.testing.TestTables;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.config.ExecutionConfigOptions;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.lance.Dataset;

/**
 * A VECTOR_SEARCH that follows its table while another client changes the table's schema through
 * plain Lance: a column added keeps it searching (and finding the rows written with it); a column
 * it reads dropped ends the job, naming the table, the column and the versions.
 */
class VectorSearchSchemaChangeITCase {
  private static final long NEW_ID = 1_000_000;

  @RegisterExtension static final MiniClusterExtension CLUSTER = TestClusters.withoutRestarts();

  @TempDir Path dir;

  @Test
  @Timeout(value = 180, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void keepsSearchingAcrossAnAddAndEndsNamingADroppedColumn() throws Exception {
    String docs = dir.resolve("docs").toString();
    VectorData.writeDocs(docs, VectorData.clustered(50, 8, 2, 9), 50); // 2
    TableEnvironment env = Sql.streaming(Duration.ofMillis(100));
    env.getConfig()
        .getConfiguration()
        .set(ExecutionConfigOptions.TABLE_EXEC_RESOURCE_DEFAULT_PARALLELISM, 1);
    exec(
        env,
        "CREATE TABLE docs (id BIGINT, category STRING, embedding ARRAY<FLOAT NOT NULL>) WITH"
            + " ('connector' = 'lance', 'path' = '"
            + docs
            + "', 'vector-search.refresh-interval' = '200 ms')");
    exec(
        env,
        "CREATE TEMPORARY TABLE gen (qid BIGINT NOT NULL) WITH ('connector' = 'datagen',"
            + " 'fields.qid.kind' = 'random', 'rows-per-second' = '20')");
    // vec(50, 8) = [50, 50.001, ...]: far from every row written above, equal to the new one
    exec(env, "CREATE TEMPORARY VIEW q AS SELECT qid, vec(qid * 0 + 50, 8) AS vec FROM gen");
    TableResult searching =
        env.executeSql(
            "SELECT id, category FROM q, LATERAL TABLE(VECTOR_SEARCH(TABLE docs,"
                + " DESCRIPTOR(embedding), q.vec, 1))");
    try (CloseableIterator<Row> results = searching.collect()) {
      assertThat(results.next().getField(0)).isNotEqualTo(NEW_ID);

      alter(docs, dataset -> dataset.addColumns(List.of(bigint("extra")))); // 3
      RowType withExtra = withExtra();
      float[] vector = new float[8];
      for (int i = 0; i < 8; i++) {
        vector[i] = 50 + i / 1000f;
      }
      TestTables.append(
          docs,
          withExtra,
          List.of(
              GenericRowData.of(
                  NEW_ID, StringData.fromString("new"), new GenericArrayData(vector), 7L)),
          10); // 4
      List<String> seen = new ArrayList<>();
      while (!seen.contains(NEW_ID + ", new")) {
        Row row = results.next();
        seen.add(row.getField(0) + ", " + row.getField(1));
      }

      alter(docs, dataset -> dataset.dropColumns(List.of("category"))); // 5
      assertThatThrownBy(
              () -> {
                while (results.hasNext()) {
                  results.next();
                }
              })
          .hasRootCauseInstanceOf(PermanentDatasetException.class)
          .rootCause()
          .hasMessageContaining("Lance table '" + docs + "'")
          .hasMessageContaining(
              "version 5 no longer has the columns this job reads: since version 4, which it read"
                  + " before, another client dropped column 'category'.");
    }
  }

  private static RowType withExtra() {
    List<RowType.RowField> fields = new ArrayList<>(VectorData.DOCS.getFields());
    fields.add(new RowType.RowField("extra", new BigIntType()));
    return new RowType(fields);
  }

  private static Field bigint(String name) {
    return new Field(name, FieldType.nullable(new ArrowType.Int(64, true)), null);
  }

  /** Another client changes the table's schema through plain Lance. */
  private static void alter(String uri, Consumer<Dataset> change) {
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = new TableRef(uri, Map.of()).open(allocator)) {
      change.accept(dataset);
    }
  }
}
