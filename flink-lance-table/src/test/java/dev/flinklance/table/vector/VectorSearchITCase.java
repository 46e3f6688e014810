package dev.flinklance.table.vector;

import static dev.flinklance.table.testing.Sql.exec;
import static dev.flinklance.table.testing.Sql.query;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.flinklance.index.VectorMetric;
import dev.flinklance.table.testing.Sql;
import dev.flinklance.table.testing.VectorData;
import dev.flinklance.testing.Neighbours.Hit;
import dev.flinklance.testing.TestClusters;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * VECTOR_SEARCH over a small Lance table without a vector index: Lance searches exactly, so every
 * result must equal the brute force computed here, ids and distances, for every metric, in
 * streaming and batch mode, sync and async.
 */
class VectorSearchITCase {
  private static final int DIM = 8;
  private static final int K = 5;
  private static final float[][] DOCS = VectorData.clustered(300, DIM, 6, 1);
  private static final float[][] QUERIES = VectorData.clustered(12, DIM, 6, 2);
  private static final String SEARCH =
      "SELECT qid, id, score FROM queries, LATERAL TABLE(VECTOR_SEARCH(TABLE docs,"
          + " DESCRIPTOR(embedding), queries.vec, 5%s))";

  @RegisterExtension static final MiniClusterExtension CLUSTER = TestClusters.withoutRestarts();

  @TempDir static Path dir;
  private static String docs;
  private static String queries;

  @BeforeAll
  static void writeTables() {
    docs = dir.resolve("docs").toString();
    queries = dir.resolve("queries").toString();
    VectorData.writeDocs(docs, DOCS, 100);
    VectorData.writeQueries(queries, QUERIES);
  }

  private static TableEnvironment streaming(String docsOptions) {
    return withTables(Sql.streaming(Duration.ofSeconds(10)), docsOptions);
  }

  private static TableEnvironment withTables(TableEnvironment env, String docsOptions) {
    exec(
        env,
        "CREATE TABLE docs (id BIGINT, category STRING, embedding ARRAY<FLOAT NOT NULL>) WITH"
            + " ('connector' = 'lance', 'path' = '"
            + docs
            + "'"
            + docsOptions
            + ")");
    exec(
        env,
        "CREATE TABLE queries (qid BIGINT, vec ARRAY<FLOAT NOT NULL>) WITH ('connector' ="
            + " 'lance', 'path' = '"
            + queries
            + "')");
    return env;
  }

  private static void assertHits(List<Hit> actual, List<Hit> expected, String what) {
    assertThat(actual).extracting(Hit::id).as(what).containsExactlyElementsOf(ids(expected));
    for (int i = 0; i < expected.size(); i++) {
      double distance = expected.get(i).distance();
      assertThat(actual.get(i).distance())
          .as("%s, hit %d", what, i)
          .isCloseTo(distance, within(1e-4 * Math.max(1, Math.abs(distance))));
    }
  }

  private static List<Long> ids(List<Hit> hits) {
    return hits.stream().map(Hit::id).toList();
  }

  private static void assertExact(List<Row> rows, VectorMetric metric, String mode) {
    Map<Long, List<Hit>> found = VectorData.hitsByQuery(rows);
    assertThat(found).as(mode).hasSize(QUERIES.length);
    for (int q = 0; q < QUERIES.length; q++) {
      assertHits(
          found.get((long) q),
          VectorData.nearest(metric, DOCS, QUERIES[q], K),
          String.format("%s, %s, query %d", mode, metric, q));
    }
  }

  @Test
  void exactSearchEqualsBruteForce() {
    assertExact(query(streaming(""), String.format(SEARCH, "")), VectorMetric.L2, "streaming");
  }

  @Test
  void everyMetricInBatchAndStreamingSyncAndAsync() {
    for (VectorMetric metric : VectorMetric.values()) {
      String option = ", 'vector-search.metric' = '" + metric + "'";
      assertExact(
          query(withTables(Sql.batch(), option), String.format(SEARCH, "")), metric, "batch");
      assertExact(
          query(streaming(option), String.format(SEARCH, ", MAP['async', 'true']")),
          metric,
          "streaming async");
    }
  }

  @Test
  void queryConfigWinsOverTableOptions() {
    TableEnvironment env = streaming(", 'vector-search.metric' = 'dot'");
    List<Row> rows = query(env, String.format(SEARCH, ", MAP['vector-search.metric', 'cosine']"));
    assertExact(rows, VectorMetric.COSINE, "CONFIG map");
  }

  /**
   * Flink 2.2 takes a filtered table only when the whole filter is pushed into the table (a Calc
   * left between the table and VECTOR_SEARCH fails planning); Lance then evaluates it.
   */
  @Test
  void filteredTableIsSearchedWithPrefilterOrPostfilter() {
    String search =
        "SELECT qid, id, score FROM queries, LATERAL TABLE(VECTOR_SEARCH((SELECT id, embedding"
            + " FROM docs WHERE category = 'c1'), DESCRIPTOR(embedding), queries.vec, 5%s))";
    TableEnvironment env = streaming("");

    Map<Long, List<Hit>> prefiltered =
        VectorData.hitsByQuery(query(env, String.format(search, "")));
    Map<Long, List<Hit>> postfiltered =
        VectorData.hitsByQuery(
            query(env, String.format(search, ", MAP['vector-search.prefilter', 'false']")));
    for (int q = 0; q < QUERIES.length; q++) {
      float[] query = QUERIES[q];
      assertHits(prefiltered.get((long) q), nearestInC1(query), "prefilter, query " + q);
      List<Hit> nearestInC1 =
          VectorData.nearest(VectorMetric.L2, DOCS, query, K).stream()
              .filter(hit -> hit.id() % 3 == 1)
              .toList();
      assertHits(
          postfiltered.getOrDefault((long) q, List.of()), nearestInC1, "postfilter, query " + q);
    }
  }

  /** The exact {@code K} nearest rows of category c1 (ids 1, 4, 7, ...). */
  private static List<Hit> nearestInC1(float[] query) {
    return IntStream.range(0, DOCS.length)
        .filter(i -> i % 3 == 1)
        .mapToObj(i -> new Hit(i, VectorData.distance(VectorMetric.L2, query, DOCS[i])))
        .sorted(Comparator.comparingDouble(Hit::distance))
        .limit(K)
        .toList();
  }

  /**
   * The pushed filter reaches Lance through JNI, where a literal outside the Basic Multilingual
   * Plane used to fail the search ("invalid utf-8 sequence"); Flink cannot keep the filter instead.
   */
  @Test
  void filterLiteralOutsideTheBasicPlane() {
    String emojiDocs = dir.resolve("emoji-docs").toString();
    VectorData.writeDocs(emojiDocs, DOCS, 100, id -> id % 3 == 1 ? "c😀" : "c" + id % 3);
    TableEnvironment env = streaming("");
    exec(
        env,
        "CREATE TABLE emoji_docs (id BIGINT, category STRING, embedding ARRAY<FLOAT NOT NULL>)"
            + " WITH ('connector' = 'lance', 'path' = '"
            + emojiDocs
            + "')");
    Map<Long, List<Hit>> found =
        VectorData.hitsByQuery(
            query(
                env,
                "SELECT qid, id, score FROM queries, LATERAL TABLE(VECTOR_SEARCH((SELECT id,"
                    + " embedding FROM emoji_docs WHERE category = 'c😀'), DESCRIPTOR(embedding),"
                    + " queries.vec, 5))"));
    for (int q = 0; q < QUERIES.length; q++) {
      assertHits(found.get((long) q), nearestInC1(QUERIES[q]), "query " + q);
    }
  }

  @Test
  void constantQueryOfIntegersIsReadAsNumbers() {
    List<Row> rows =
        query(
            streaming(""),
            "SELECT id, score FROM TABLE(VECTOR_SEARCH(TABLE docs, DESCRIPTOR(embedding),"
                + " ARRAY[1, 0, -1, 0, 1, 0, -1, 2], 3))");
    List<Hit> found =
        rows.stream().map(r -> new Hit((Long) r.getField(0), (Double) r.getField(1))).toList();
    assertHits(
        found.stream().sorted(Comparator.comparingDouble(Hit::distance)).toList(),
        VectorData.nearest(VectorMetric.L2, DOCS, new float[] {1, 0, -1, 0, 1, 0, -1, 2}, 3),
        "ARRAY[1, 0, -1, ...]");
  }

  @Test
  void nullQueryFindsNothingAndLeftJoinKeepsTheRow() {
    TableEnvironment env = streaming("");
    exec(
        env,
        "CREATE TEMPORARY VIEW q2 AS SELECT * FROM (VALUES (CAST(1 AS BIGINT),"
            + " CAST(NULL AS ARRAY<FLOAT NOT NULL>)), (CAST(2 AS BIGINT), CAST(ARRAY[1, 0, -1, 0,"
            + " 1, 0, -1, 2] AS ARRAY<FLOAT NOT NULL>))) AS t(qid, vec)");
    List<Row> inner =
        query(
            env,
            "SELECT qid, id FROM q2, LATERAL TABLE(VECTOR_SEARCH(TABLE docs, DESCRIPTOR(embedding),"
                + " q2.vec, 2))");
    assertThat(inner).extracting(r -> r.getField(0)).containsExactly(2L, 2L);
    List<Row> left =
        query(
            env,
            "SELECT qid, id, score FROM q2 LEFT JOIN LATERAL TABLE(VECTOR_SEARCH(TABLE docs,"
                + " DESCRIPTOR(embedding), q2.vec, 2)) ON TRUE");
    assertThat(left).hasSize(3);
    assertThat(left)
        .filteredOn(r -> r.getField(0).equals(1L))
        .singleElement()
        .satisfies(r -> assertThat(r.getField(1)).isNull())
        .satisfies(r -> assertThat(r.getField(2)).isNull());
  }

  /**
   * Flink 2.2 and 2.3 lose the correlation of an aliased call ({@code LATERAL TABLE(...) AS d}
   * plans as a join whose query argument reads the searched table) and fail planning; the call
   * wrapped in a LATERAL subquery of all its columns searches with each query row, as docs/sql.md
   * shows (a subquery of some columns is refused).
   */
  @Test
  void aliasedCallFailsPlanningAndAWrappedCallSearchesPerQuery() {
    TableEnvironment env = streaming("");
    String call = "TABLE(VECTOR_SEARCH(TABLE docs, DESCRIPTOR(embedding), q.vec, 5))";
    assertExact(
        query(
            env,
            "SELECT q.qid, d.id, d.score FROM queries AS q, LATERAL (SELECT * FROM "
                + call
                + ") AS d"),
        VectorMetric.L2,
        "wrapped call");
    assertThat(
            query(
                env,
                "SELECT q.qid, d.id FROM queries AS q LEFT JOIN LATERAL (SELECT * FROM "
                    + call
                    + ") AS d ON TRUE"))
        .hasSize(QUERIES.length * K);
    assertThatThrownBy(
            () ->
                query(
                    env,
                    "SELECT q.qid, d.id FROM queries AS q, LATERAL (SELECT id, score FROM "
                        + call
                        + ") AS d"))
        .hasStackTraceContaining("only table functions can be used in a correlate operation");
    for (String aliased :
        List.of(
            "SELECT q.qid, d.id FROM queries AS q, LATERAL " + call + " AS d",
            "SELECT q.qid, d.id FROM queries AS q LEFT JOIN LATERAL " + call + " AS d ON TRUE")) {
      assertThatThrownBy(() -> query(env, aliased))
          .as(aliased)
          .hasStackTraceContaining("Cannot generate a valid execution plan");
    }
  }

  /**
   * Flink accepts a query column only of a type it casts implicitly to the searched column's:
   * {@code ARRAY<FLOAT>} (nullable elements) and {@code ARRAY<DOUBLE>} are refused for an {@code
   * ARRAY<FLOAT NOT NULL>} column; cast in a subquery, or (nullable elements) with the searched
   * column declared {@code ARRAY<FLOAT>}, they search, and a NULL element fails with the search's
   * own message.
   */
  @Test
  void queryWithNullableElementsIsCastOrSearchesAColumnDeclaredNullable() {
    TableEnvironment env = streaming("");
    exec(
        env,
        "CREATE TABLE raw_queries (qid BIGINT, vec ARRAY<FLOAT>) WITH ('connector' = 'lance',"
            + " 'path' = '"
            + queries
            + "')");
    exec(
        env,
        "CREATE TABLE nullable_docs (id BIGINT, category STRING, embedding ARRAY<FLOAT>) WITH"
            + " ('connector' = 'lance', 'path' = '"
            + docs
            + "')");
    String search =
        "SELECT q.qid, id, score FROM %s AS q, LATERAL TABLE(VECTOR_SEARCH(TABLE %s,"
            + " DESCRIPTOR(embedding), q.vec, 5))";
    assertThatThrownBy(() -> query(env, String.format(search, "raw_queries", "docs")))
        .hasStackTraceContaining(
            "Can not cast the query column type ARRAY<FLOAT> to target type FLOAT ARRAY");
    String doubles = "(SELECT qid, CAST(vec AS ARRAY<DOUBLE NOT NULL>) AS vec FROM queries)";
    assertThatThrownBy(() -> query(env, String.format(search, doubles, "docs")))
        .hasStackTraceContaining(
            "Can not cast the query column type ARRAY<DOUBLE NOT NULL> to target type FLOAT ARRAY");
    for (String from : List.of("raw_queries", doubles)) {
      String cast = "(SELECT qid, CAST(vec AS ARRAY<FLOAT NOT NULL>) AS vec FROM " + from + ")";
      assertExact(query(env, String.format(search, cast, "docs")), VectorMetric.L2, cast);
    }
    assertExact(
        query(env, String.format(search, "raw_queries", "nullable_docs")),
        VectorMetric.L2,
        "ARRAY<FLOAT> column");

    String withNull =
        "(SELECT * FROM (VALUES (CAST(1 AS BIGINT), ARRAY[CAST(1 AS FLOAT), NULL, 0, 0, 0, 0, 0,"
            + " 0])) AS t(qid, vec))";
    for (String table : List.of("nullable_docs", "docs")) {
      String from =
          table.equals("docs")
              ? "(SELECT qid, CAST(vec AS ARRAY<FLOAT NOT NULL>) AS vec FROM " + withNull + ")"
              : withNull;
      assertThatThrownBy(() -> query(env, String.format(search, from, table)))
          .as(table)
          .hasStackTraceContaining(
              "VECTOR_SEARCH on column 'embedding': the query vector has a NULL element at index 1");
    }
  }
}
