package dev.flinklance.table.vector;

import static dev.flinklance.table.testing.Sql.exec;
import static dev.flinklance.table.testing.Sql.query;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flinklance.access.TableRef;
import dev.flinklance.errors.PermanentDatasetException;
import dev.flinklance.table.testing.Sql;
import dev.flinklance.table.testing.VectorData;
import dev.flinklance.table.vector.index.LanceVectorIndex;
import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.TestClusters;
import dev.flinklance.testing.TestTables;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.ExceptionUtils;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bad input to VECTOR_SEARCH and to the index build: a clear error naming the column or option,
 * before the job runs where it can be known then, and never a hang (every test has a timeout); a
 * failed build leaves the table as it was.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class VectorSearchBadInputITCase {
  private static final float[][] DOCS = VectorData.clustered(200, 8, 4, 5);

  @RegisterExtension static final MiniClusterExtension CLUSTER = TestClusters.withoutRestarts();

  @TempDir static Path dir;
  private static String docs;
  private static String lists;

  @BeforeAll
  static void writeTables() {
    docs = dir.resolve("docs").toString();
    VectorData.writeDocs(docs, DOCS, 100);
    lists = dir.resolve("lists").toString();
    TestTables.write(
        lists,
        VectorData.DOCS,
        List.of(
            GenericRowData.of(
                1L, StringData.fromString("a"), new GenericArrayData(new float[] {1, 2}))),
        1);
  }

  private static TableEnvironment env(String embeddingType, String options) {
    TableEnvironment env = Sql.streaming(Duration.ofSeconds(10));
    exec(
        env,
        "CREATE TABLE docs (id BIGINT, category STRING, embedding "
            + embeddingType
            + ") WITH ('connector' = 'lance', 'path' = '"
            + docs
            + "'"
            + options
            + ")");
    exec(
        env,
        "CREATE TABLE lists (id BIGINT, category STRING, embedding ARRAY<FLOAT NOT NULL>) WITH"
            + " ('connector' = 'lance', 'path' = '"
            + lists
            + "')");
    return env;
  }

  private static TableEnvironment env() {
    return env("ARRAY<FLOAT NOT NULL>", "");
  }

  private static String search(String table, String column, String query, int k, String config) {
    return String.format(
        "SELECT id, score FROM TABLE(VECTOR_SEARCH(TABLE %s, DESCRIPTOR(%s), %s, %d%s))",
        table, column, query, k, config);
  }

  private static final String EIGHT =
      "CAST(ARRAY[1, 0, 0, 0, 0, 0, 0, 1] AS ARRAY<FLOAT NOT NULL>)";

  @Test
  void queryOfTheWrongDimensionFailsTheJobNamingTheColumn() {
    for (String config : new String[] {"", ", MAP['async', 'true']"}) {
      assertThatThrownBy(
              () -> query(env(), search("docs", "embedding", "ARRAY[1.0, 2.0, 3.0]", 3, config)))
          .satisfies(
              e ->
                  assertThat(ExceptionUtils.findThrowable(e, PermanentDatasetException.class))
                      .as("not recoverable: a restart replays the same query")
                      .isPresent())
          .hasStackTraceContaining(
              "VECTOR_SEARCH on column 'embedding': the query vector has 3 elements, the"
                  + " column's vectors have 8");
    }
  }

  @Test
  void queryWithANullElementFailsNamingTheColumn() {
    TableEnvironment env = env("ARRAY<FLOAT>", "");
    exec(
        env,
        "CREATE TEMPORARY VIEW q AS SELECT * FROM (VALUES (ARRAY[CAST(1 AS FLOAT), 0, 0, 0,"
            + " CAST(NULL AS FLOAT), 0, 0, 1])) AS t(vec)");
    assertThatThrownBy(
            () ->
                query(
                    env,
                    "SELECT id FROM q, LATERAL TABLE(VECTOR_SEARCH(TABLE docs,"
                        + " DESCRIPTOR(embedding), q.vec, 3))"))
        .hasStackTraceContaining(
            "VECTOR_SEARCH on column 'embedding': the query vector has a NULL element at index 4");
  }

  @Test
  void columnThatIsNotAVectorFailsAtPlanning() {
    TableEnvironment env = env();
    assertThatThrownBy(() -> env.explainSql(search("lists", "embedding", EIGHT, 3, "")))
        .isInstanceOf(ValidationException.class)
        .hasMessageContaining(lists)
        .hasMessageContaining(
            "Column 'embedding' is a variable-length list (embedding: List<item: FloatingPoint(SINGLE)")
        .hasMessageContaining("'vector-columns' = 'embedding:<dimension>'");
    assertThatThrownBy(() -> env.explainSql(search("docs", "category", EIGHT, 3, "")))
        .as("Flink itself refuses a column that is no array of floats")
        .hasStackTraceContaining("Expect search column `category` type is ARRAY<FLOAT>");
  }

  @Test
  void invalidOptionsFailAtPlanningNamingTheOption() {
    assertThatThrownBy(
            () ->
                env("ARRAY<FLOAT NOT NULL>", ", 'vector-search.nprobes' = '0'")
                    .explainSql("SELECT * FROM docs"))
        .hasStackTraceContaining(
            "Invalid vector search option 'vector-search.nprobes': must be positive, got 0");
    assertThatThrownBy(
            () ->
                env("ARRAY<FLOAT NOT NULL>", ", 'vector-search.metric' = 'manhattan'")
                    .explainSql("SELECT * FROM docs"))
        .hasStackTraceContaining("Invalid value for option 'vector-search.metric'")
        .hasStackTraceContaining("Expected one of: [[l2, cosine, dot]]");
    TableEnvironment env = env();
    assertThatThrownBy(
            () ->
                env.explainSql(
                    search(
                        "docs",
                        "embedding",
                        EIGHT,
                        3,
                        ", MAP['vector-search.metric', 'manhattan']")))
        .hasStackTraceContaining(
            "Invalid vector search option 'vector-search.metric': cannot parse 'manhattan'")
        .hasStackTraceContaining("Expected one of: [[l2, cosine, dot]]");
    assertThatThrownBy(
            () ->
                env.explainSql(
                    search("docs", "embedding", EIGHT, 3, ", MAP['vector-search.nprobe', '5']")))
        .hasStackTraceContaining(
            "Invalid vector search option 'vector-search.nprobe': is not a vector search option;"
                + " they are [vector-search.metric, vector-search.nprobes");
    assertThatThrownBy(
            () ->
                env.explainSql(
                    search(
                        "docs",
                        "embedding",
                        EIGHT,
                        3,
                        ", MAP['vector-search.refine-factor', '-1']")))
        .hasStackTraceContaining(
            "Invalid vector search option 'vector-search.refine-factor': must be positive, got -1");
  }

  @Test
  void efBelowTopKFailsNamingTheOption() {
    assertThatThrownBy(
            () ->
                query(
                    env(),
                    search("docs", "embedding", EIGHT, 10, ", MAP['vector-search.ef', '5']")))
        .hasStackTraceContaining("'vector-search.ef' (5) must be at least top_k (10)");
  }

  @Test
  void badIndexBuildsFailBeforeTouchingTheTable() {
    TableRef table = new TableRef(docs, Map.of());
    long version = LanceTestTables.latestVersion(docs);
    assertThatThrownBy(() -> LanceVectorIndex.create(table, "embedding", "IVF_XYZ", Map.of()))
        .hasMessageContaining("Unknown vector index type 'IVF_XYZ'; the types are [IVF_FLAT,");
    assertThatThrownBy(
            () -> LanceVectorIndex.create(table, "embedding", "IVF_PQ", Map.of("partitions", "4")))
        .hasMessageContaining("Unknown vector index option 'partitions'; the options are [metric,");
    assertThatThrownBy(
            () ->
                LanceVectorIndex.create(
                    table, "embedding", "IVF_SQ", Map.of("num-sub-vectors", "4")))
        .hasMessageContaining(
            "Invalid vector index option 'num-sub-vectors': does not apply to IVF_SQ indexes");
    assertThatThrownBy(
            () ->
                LanceVectorIndex.create(
                    table, "embedding", "IVF_PQ", Map.of("num-sub-vectors", "3")))
        .hasMessageContaining(docs)
        .hasMessageContaining(
            "Invalid vector index option 'num-sub-vectors': 3 does not divide the dimension 8");
    assertThatThrownBy(
            () ->
                LanceVectorIndex.create(
                    table, "embedding", "IVF_PQ", Map.of("num-partitions", "500")))
        .hasMessageContaining(
            "Invalid vector index option 'num-partitions': 500 is more than the table's 200 rows");
    assertThatThrownBy(() -> LanceVectorIndex.create(table, "category", "IVF_PQ", Map.of()))
        .hasMessageContaining("Column 'category' has type category: Utf8, not a vector of floats");
    assertThatThrownBy(() -> LanceVectorIndex.create(table, "nope", "IVF_PQ", Map.of()))
        .hasMessageContaining(
            "Column 'nope' does not exist; columns are [id, category, embedding]");
    assertThat(LanceTestTables.latestVersion(docs)).isEqualTo(version);

    String empty = dir.resolve("empty").toString();
    TestTables.create(empty, VectorData.DOCS, Map.of("embedding", 8));
    assertThatThrownBy(
            () ->
                LanceVectorIndex.create(
                    new TableRef(empty, Map.of()), "embedding", "IVF_PQ", Map.of()))
        .hasMessageContaining(
            "the table has no rows to train a vector index on column 'embedding'");
  }

  @Test
  void existingIndexIsKeptUnlessReplaceIsAllowed() {
    String copy = dir.resolve("replace").toString();
    VectorData.writeDocs(copy, DOCS, 100);
    TableRef table = new TableRef(copy, Map.of());
    LanceVectorIndex.create(table, "embedding", "IVF_FLAT", Map.of("num-partitions", "2"));
    long version = LanceTestTables.latestVersion(copy);
    assertThatThrownBy(
            () ->
                LanceVectorIndex.create(table, "embedding", "IVF_FLAT", Map.of("replace", "false")))
        .hasMessageContaining("an index named 'embedding_idx' exists; set 'replace' = 'true'");
    assertThat(LanceTestTables.latestVersion(copy)).isEqualTo(version);
  }

  @Test
  void commandLineNeedsItsArguments() {
    assertThatThrownBy(
            () -> LanceVectorIndex.main(new String[] {"--path", docs, "--type", "IVF_PQ"}))
        .hasMessageContaining("--path, --column and --type are required")
        .hasMessageContaining(
            "Usage: LanceVectorIndex --path <uri> --column <column> --type <type>");
    assertThatThrownBy(
            () ->
                LanceVectorIndex.main(
                    new String[] {
                      "--path", docs, "--column", "embedding", "--type", "IVF_PQ", "--num-bits"
                    }))
        .hasMessageContaining("missing value for --num-bits");
  }
}
