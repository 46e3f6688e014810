package dev.flinklance.table.lookup;

import static dev.flinklance.table.testing.Sql.exec;
import static dev.flinklance.table.testing.Sql.queryStrings;
import static org.apache.flink.table.api.Expressions.$;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flinklance.access.TableRef;
import dev.flinklance.errors.PermanentDatasetException;
import dev.flinklance.table.testing.LookupJoin;
import dev.flinklance.table.testing.LookupJoin.Probe;
import dev.flinklance.table.testing.Sql;
import dev.flinklance.table.testing.Users;
import dev.flinklance.testing.TestClusters;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.util.ExceptionUtils;
import org.apache.flink.util.FileUtils;
import org.apache.flink.util.function.ThrowingRunnable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.lance.Dataset;

/**
 * What ends a lookup join, and how: a table dropped or replaced, or a joined column dropped, under
 * the running job is a non-recoverable failure naming the table; a key type the lookup cannot
 * filter by and invalid options fail at planning, naming the column or option.
 */
class LookupFailuresITCase {
  private static final Duration REFRESH = Duration.ofMillis(200);

  @RegisterExtension static final MiniClusterExtension CLUSTER = TestClusters.withoutRestarts();

  @TempDir Path dir;

  private TableRef users() {
    TableRef table = Users.local(dir.resolve("users").toString());
    Users.write(table.uri(), 100, 50);
    return table;
  }

  private static String options(TableRef table, String cache) {
    return String.format(
        "'path' = '%s', 'lookup.cache' = '%s', 'lookup.refresh-interval' = '%d ms'",
        table.uri(), cache, REFRESH.toMillis());
  }

  private static void assertEndsTheJob(Throwable failure, String uri, String reason) {
    assertThat(ExceptionUtils.findThrowable(failure, PermanentDatasetException.class))
        .as("not recoverable: every restart would meet it again")
        .hasValueSatisfying(
            e -> assertThat(e).hasMessageContaining(uri).hasMessageContaining(reason));
  }

  /** How a lookup join on {@code table} fails once {@code change} changed the table under it. */
  private static Throwable failureAfter(
      TableRef table, String cache, ThrowingRunnable<Exception> change) throws Exception {
    try (LookupJoin join = new LookupJoin(1, options(table, cache), "c.id = u.id", REFRESH)) {
      assertThat(join.probe(List.of(Probe.ofId(3L)), List.of("one row"))).hasSize(1);
      change.run();
      return join.probeUntilTheJobFails(Probe.ofId(3L));
    }
  }

  @ParameterizedTest(name = "cache {0}")
  @ValueSource(strings = {"NONE", "FULL"})
  @Timeout(value = 300, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void aTableDroppedUnderTheJobEndsItNamingTheTable(String cache) throws Exception {
    TableRef table = users();
    Throwable failure =
        failureAfter(table, cache, () -> FileUtils.deleteDirectory(Path.of(table.uri()).toFile()));
    assertEndsTheJob(failure, table.uri(), cache.equals("FULL") ? "does not exist" : "dropped");
  }

  /**
   * A table deleted and created again with as many versions: its latest version has the number the
   * FULL cache's trigger saw, and only the commit instant tells it apart.
   */
  @ParameterizedTest(name = "cache {0}")
  @ValueSource(strings = {"NONE", "FULL"})
  @Timeout(value = 300, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void aTableReplacedUnderTheJobEndsItNamingTheTable(String cache) throws Exception {
    TableRef table = users();
    Path next = dir.resolve("next");
    Users.write(next.toString(), 100, 50); // the same versions, committed later
    Throwable failure =
        failureAfter(
            table,
            cache,
            () -> {
              // two renames: the job's looks find the one table or the other, not none (a drop)
              Files.move(Path.of(table.uri()), dir.resolve("replaced"));
              Files.move(next, Path.of(table.uri()));
            });
    assertEndsTheJob(failure, table.uri(), "dropped or replaced");
  }

  @ParameterizedTest(name = "cache {0}")
  @ValueSource(strings = {"NONE", "FULL"})
  @Timeout(value = 300, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void aJoinedColumnDroppedUnderTheJobEndsItNamingTheColumn(String cache) throws Exception {
    TableRef table = users();
    Throwable failure =
        failureAfter(
            table,
            cache,
            () -> {
              try (BufferAllocator allocator = new RootAllocator();
                  Dataset dataset = table.open(allocator)) {
                dataset.dropColumns(List.of("name"));
              }
            });
    assertEndsTheJob(failure, table.uri(), "no longer has the columns this job reads");
    assertThat(failure).hasStackTraceContaining("another client dropped column 'name'");
  }

  private TableEnvironment scores(String name, String options) {
    String path = dir.resolve(name).toString();
    TableEnvironment env = Sql.streaming(Duration.ofSeconds(1));
    exec(
        env,
        "CREATE TABLE scores (id BIGINT, score DOUBLE, label STRING) WITH ('connector' ="
            + " 'lance', 'path' = '"
            + path
            + "'"
            + options
            + ")");
    exec(env, "INSERT INTO scores VALUES (1, 0.5, 'half'), (2, 1.5, 'more'), (3, 0.5, 'again')");
    exec(
        env,
        "CREATE TEMPORARY VIEW probes AS SELECT score, PROCTIME() AS proc_time FROM (VALUES"
            + " (0.5), (1.5), (2.5)) AS t(score)");
    return env;
  }

  private static final String BY_SCORE =
      "SELECT p.score, s.label FROM probes AS p LEFT JOIN scores FOR SYSTEM_TIME AS OF p.proc_time"
          + " AS s ON p.score = s.score";

  @Test
  void aKeyTypeLanceCannotFilterByFailsAtPlanningAndTheFullCacheTakesIt() {
    assertThatThrownBy(() -> scores("scores", "").explainSql(BY_SCORE))
        .hasRootCauseInstanceOf(ValidationException.class)
        .rootCause()
        .hasMessageContaining(dir.resolve("scores").toString())
        .hasMessageContaining("the lookup join looks up by column 'score' of type DOUBLE")
        .hasMessageContaining("'lookup.cache' = 'FULL'");
    assertThat(queryStrings(scores("cached", ", 'lookup.cache' = 'FULL'"), BY_SCORE))
        .containsExactlyInAnyOrder(
            "+I[0.5, half]", "+I[0.5, again]", "+I[1.5, more]", "+I[2.5, null]");
  }

  /**
   * Issue 28: {@code AND s.score = 10.0} beside the key reaches the lookup as a key column of a
   * type Lance cannot compare exactly; it was refused at planning. Each join must give what Flink's
   * own join gives on the same rows (floating point by value: 0.0 equals -0.0, NaN nothing).
   */
  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        ", 'lookup.async' = 'true'",
        ", 'lookup.cache' = 'PARTIAL', 'lookup.partial-cache.max-rows' = '100'"
      })
  void constantConditionsOnColumnsLanceCannotCompareAreMatchedBesideTheKey(String options)
      throws Exception {
    String path = dir.resolve("readings").toString();
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    StreamTableEnvironment tables = StreamTableEnvironment.create(env);
    // the reference: the same rows as a stream, so that Flink evaluates the conditions at run time
    // (over constant VALUES the planner folds them with other rules)
    tables.createTemporaryView(
        "flink_readings",
        tables
            .fromDataStream(
                env.fromData(
                        reading(1, 10.0, 0.1f, "1.50", "a"),
                        reading(2, 9.5, 0.1f, "1.5", "b"),
                        reading(3, 10.0, 0.2f, "2.00", "c"),
                        reading(4, -0.0, 0.1f, "1.50", "d"),
                        reading(5, Double.NaN, 0.1f, "1.50", "e"),
                        reading(6, null, null, null, "f"),
                        reading(7, 0.0, 0.1f, "1.5", "g"))
                    .returns(
                        Types.ROW_NAMED(
                            new String[] {"id", "score", "ratio", "amount", "label"},
                            Types.LONG,
                            Types.DOUBLE,
                            Types.FLOAT,
                            Types.BIG_DEC,
                            Types.STRING)))
            .select(
                $("id"),
                $("score"),
                $("ratio"),
                $("amount").cast(DataTypes.DECIMAL(10, 2)).as("amount"),
                $("label")));
    exec(
        tables,
        "CREATE TABLE readings (id BIGINT, score DOUBLE, ratio FLOAT, amount DECIMAL(10, 2), label"
            + " STRING) WITH ('connector' = 'lance', 'path' = '"
            + path
            + "'"
            + options
            + ")");
    exec(tables, "INSERT INTO readings SELECT * FROM flink_readings");
    exec(
        tables,
        "CREATE TEMPORARY VIEW probes AS SELECT CAST(id AS BIGINT) AS id, PROCTIME() AS"
            + " proc_time FROM (VALUES (1), (2), (3), (4), (5), (6), (7), (8)) AS t(id)");
    Map<String, List<String>> joins = new LinkedHashMap<>();
    for (String condition :
        List.of(
            "s.score = 10.0",
            "s.score = 0.0",
            "s.score = CAST('NaN' AS DOUBLE)",
            "s.ratio = CAST(0.1 AS FLOAT) AND s.amount = 1.5")) {
      List<String> lookedUp =
          queryStrings(
              tables,
              "SELECT p.id, s.label FROM probes AS p JOIN readings FOR SYSTEM_TIME AS OF"
                  + " p.proc_time AS s ON p.id = s.id AND "
                  + condition);
      List<String> flinks =
          queryStrings(
              tables,
              "SELECT p.id, s.label FROM probes AS p JOIN flink_readings AS s ON p.id = s.id AND "
                  + condition);
      assertThat(lookedUp).as(condition).containsExactlyInAnyOrderElementsOf(flinks);
      joins.put(condition, lookedUp);
    }
    assertThat(joins.get("s.score = 10.0")).containsExactlyInAnyOrder("+I[1, a]", "+I[3, c]");
    assertThat(joins.get("s.score = 0.0")).containsExactlyInAnyOrder("+I[4, d]", "+I[7, g]");
    assertThat(joins.get("s.score = CAST('NaN' AS DOUBLE)")).isEmpty();
    assertThat(joins.get("s.ratio = CAST(0.1 AS FLOAT) AND s.amount = 1.5"))
        .containsExactlyInAnyOrder("+I[1, a]", "+I[2, b]", "+I[4, d]", "+I[5, e]", "+I[7, g]");
  }

  private static Row reading(long id, Double score, Float ratio, String amount, String label) {
    return Row.of(id, score, ratio, amount == null ? null : new BigDecimal(amount), label);
  }

  @Test
  void invalidLookupOptionsFailAtPlanningNamingTheOption() {
    TableRef table = users();
    TableEnvironment env = Sql.streaming(Duration.ofSeconds(1));
    String create =
        "CREATE TABLE %s ("
            + Users.DDL_COLUMNS
            + ") WITH ('connector' = 'lance', 'path' = '"
            + table.uri()
            + "', %s)";
    exec(env, String.format(create, "partial", "'lookup.cache' = 'PARTIAL'"));
    exec(env, String.format(create, "misspelled", "'lookup.partial-cache.max-row' = '10'"));
    exec(env, String.format(create, "contradicting", "'lookup.max-retries' = '-2'"));
    exec(
        env,
        "CREATE TEMPORARY VIEW probes AS SELECT id, PROCTIME() AS proc_time FROM (VALUES"
            + " (CAST(1 AS BIGINT))) AS t(id)");
    String join =
        "SELECT p.id, u.name FROM probes AS p JOIN %s FOR SYSTEM_TIME AS OF p.proc_time AS u ON"
            + " p.id = u.id";
    assertThatThrownBy(() -> env.explainSql(String.format(join, "partial")))
        .hasRootCauseInstanceOf(IllegalArgumentException.class)
        .hasStackTraceContaining(table.uri())
        .hasStackTraceContaining("lookup.partial-cache.max-rows");
    assertThatThrownBy(() -> env.explainSql(String.format(join, "misspelled")))
        .hasStackTraceContaining("Unsupported options")
        .hasStackTraceContaining("lookup.partial-cache.max-row")
        .hasStackTraceContaining("lookup.partial-cache.max-rows");
    assertThatThrownBy(() -> env.explainSql(String.format(join, "contradicting")))
        .hasStackTraceContaining("Invalid lookup option 'lookup.max-retries'");
  }
}
