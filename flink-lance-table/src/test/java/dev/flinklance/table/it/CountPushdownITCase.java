package dev.flinklance.table.it;

import static dev.flinklance.table.testing.Sql.exec;
import static dev.flinklance.table.testing.Sql.queryStrings;
import static org.assertj.core.api.Assertions.assertThat;

import dev.flinklance.table.testing.Sql;
import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.TestClusters;
import dev.flinklance.testing.TestTables;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code SELECT COUNT(*)} of a bounded read is Lance's row count: the plan shows the aggregate in
 * the scan, and the count equals what Flink counts itself (the same query with pushdown off) on a
 * table of several fragments with deleted rows, with pushed filters, at an older version; other
 * aggregates stay Flink's.
 */
class CountPushdownITCase {
  @RegisterExtension static final MiniClusterExtension CLUSTER = TestClusters.withoutRestarts();

  @TempDir static Path dir;

  private static final RowType ROW_TYPE =
      (RowType)
          DataTypes.ROW(
                  DataTypes.FIELD("id", DataTypes.BIGINT().notNull()),
                  DataTypes.FIELD("s", DataTypes.STRING()))
              .notNull()
              .getLogicalType();

  private static TableEnvironment env;

  @BeforeAll
  static void writeTable() {
    String path = dir.resolve("t").toString();
    List<RowData> rows = new ArrayList<>();
    for (int n = 0; n < 1_000; n++) {
      rows.add(GenericRowData.of((long) n, n % 7 == 0 ? null : StringData.fromString("s" + n % 5)));
    }
    TestTables.write(path, ROW_TYPE, rows, 300); // version 1, four fragments
    TestTables.delete(path, "id % 10 = 0"); // version 2: deletion files in every fragment
    env = Sql.batch();
    for (String pushdown : List.of("true", "false")) {
      exec(
          env,
          String.format(
              "CREATE TABLE t_%s (id BIGINT NOT NULL, s STRING) WITH ('connector' = 'lance',"
                  + " 'path' = '%s', 'scan.filter-pushdown.enabled' = '%s')",
              pushdown, path, pushdown));
    }
  }

  private static List<String> both(String select) {
    List<String> pushed = queryStrings(env, String.format(select, "t_true"));
    assertThat(pushed)
        .as("with pushdown, against Flink's own count")
        .isEqualTo(queryStrings(env, String.format(select, "t_false")));
    return pushed;
  }

  private static String plan(String query) {
    String plan = env.explainSql(query);
    return plan.substring(plan.indexOf("== Optimized Physical Plan =="));
  }

  @Test
  void countOfTheWholeTableIsLancesRowCount() {
    assertThat(both("SELECT COUNT(*) FROM %s")).containsExactly("+I[900]");
    assertThat(both("SELECT COUNT(1) FROM %s")).containsExactly("+I[900]");
    assertThat(plan("SELECT COUNT(*) FROM t_true"))
        .contains("aggregates=[grouping=[], aggFunctions=[Count1AggFunction()]]");
  }

  @Test
  void countWithAPushedFilterCountsInLance() {
    // n < 500, n % 5 == 1 (never a multiple of 10), s not NULL (n % 7 != 0): 100 - 14
    assertThat(both("SELECT COUNT(*) FROM %s WHERE id < 500 AND s = 's1'"))
        .containsExactly("+I[86]");
    String plan = plan("SELECT COUNT(*) FROM t_true WHERE id < 500 AND s = 's1'");
    assertThat(plan).contains("aggFunctions=[Count1AggFunction()]").contains("filter=[");
  }

  @Test
  void countAtAnOlderVersionCountsThatVersion() {
    long beforeDelete = LanceTestTables.latestVersion(dir.resolve("t").toString()) - 1;
    assertThat(
            both("SELECT COUNT(*) FROM %s /*+ OPTIONS('scan.version' = '" + beforeDelete + "') */"))
        .containsExactly("+I[1000]");
  }

  @Test
  void otherAggregatesAndFiltersLanceCannotTakeStayInFlink() {
    // 1,000 - 143 NULLs (n % 7 == 0) - 85 deleted non-NULL ones (n % 10 == 0, n % 70 != 0)
    assertThat(both("SELECT COUNT(s) FROM %s")).containsExactly("+I[772]");
    assertThat(plan("SELECT COUNT(s) FROM t_true")).doesNotContain("aggFunctions=");
    assertThat(both("SELECT s, COUNT(*) FROM %s GROUP BY s ORDER BY s"))
        .hasSize(6)
        .contains("+I[null, 128]"); // 143 NULLs, 15 of them deleted
    assertThat(plan("SELECT s, COUNT(*) FROM t_true GROUP BY s")).doesNotContain("aggFunctions=");
    // an expression Lance does not evaluate (Flink keeps the filter, so the count stays Flink's)
    assertThat(both("SELECT COUNT(*) FROM %s WHERE MOD(id, 3) = 1")).containsExactly("+I[300]");
    assertThat(plan("SELECT COUNT(*) FROM t_true WHERE MOD(id, 3) = 1"))
        .doesNotContain("aggFunctions=");
  }
}
