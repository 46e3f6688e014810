package dev.flinklance.table.lookup;

import static dev.flinklance.table.testing.Sql.exec;
import static org.assertj.core.api.Assertions.assertThat;

import dev.flinklance.table.testing.Sql;
import dev.flinklance.table.testing.TestCatalog;
import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.TableMetrics;
import dev.flinklance.testing.TestClusters;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.JobID;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A lookup join's metrics, in the group {@code lance} keyed by the table: a Lance catalog's table
 * by its id in the namespace ({@code db.users}), not by its location.
 */
class LookupMetricsITCase {
  private static final InMemoryReporter REPORTER = InMemoryReporter.createWithRetainedMetrics();

  @RegisterExtension
  static final MiniClusterExtension CLUSTER = TestClusters.withMetrics(REPORTER, 2);

  @TempDir Path dir;

  @Test
  void aCatalogTablesLookupsAreReportedUnderItsNamespaceId() throws Exception {
    try (TestCatalog catalog = new TestCatalog(TestCatalog.Kind.DIR, dir)) {
      long version = createUsers(catalog);
      JobID job = join(catalog, "");

      TableMetrics lookups = TableMetrics.of(REPORTER, job, "db.users");
      assertThat(lookups.count("lookupKeys")).isEqualTo(3);
      assertThat(lookups.count("lookupQueries")).isBetween(1L, 3L);
      assertThat(lookups.count("lookupRetries")).isZero();
      assertThat(lookups.gauges("lookupTableVersion")).contains(version);
      assertThat(lookups.identifiers())
          .isNotEmpty()
          .allSatisfy(
              id -> assertThat(id).containsPattern("\\.lance\\.table\\.db\\.users\\.lookup\\w+$"));
      assertThat(TableMetrics.prefixedNames(REPORTER, job)).isEmpty();
    }
  }

  /** The FULL cache reports what it holds: its rows, their heap, its load's time and version. */
  @Test
  void aFullCacheReportsItsRowsBytesAndLoad() throws Exception {
    try (TestCatalog catalog = new TestCatalog(TestCatalog.Kind.DIR, dir)) {
      long version = createUsers(catalog);
      JobID job = join(catalog, "/*+ OPTIONS('lookup.cache' = 'FULL') */");

      TableMetrics lookups = TableMetrics.of(REPORTER, job, "db.users");
      assertThat(lookups.gauges("lookupTableVersion")).contains(version);
      assertThat(lookups.gauges("lookupCacheRows")).contains(3L);
      assertThat(lookups.gauges("lookupCacheBytes"))
          .isNotEmpty()
          .allSatisfy(bytes -> assertThat(bytes).isPositive());
      assertThat(lookups.gauges("lookupCacheLoadMillis"))
          .isNotEmpty()
          .allSatisfy(millis -> assertThat(millis).isNotNegative());
      assertThat(FullCache.open()).as("the job's end closed its cache").isZero();
    }
  }

  /** Three users at the returned version. */
  private static long createUsers(TestCatalog catalog) throws Exception {
    TableEnvironment batch = catalog.use(Sql.batch());
    exec(batch, "CREATE DATABASE db");
    exec(batch, "CREATE TABLE db.users (id BIGINT, name STRING)");
    exec(batch, "INSERT INTO db.users VALUES (1, 'one'), (2, 'two'), (3, 'three')");
    return LanceTestTables.latestVersion(catalog.tableUri("db", "users"));
  }

  /** Joins three clicks to the users, two of them found; {@code hint} follows the table. */
  private static JobID join(TestCatalog catalog, String hint) throws Exception {
    TableEnvironment streaming = catalog.use(Sql.streaming(Duration.ofSeconds(1)));
    exec(
        streaming,
        "CREATE TEMPORARY VIEW clicks AS SELECT id, PROCTIME() AS proc_time FROM (VALUES"
            + " (CAST(1 AS BIGINT)), (CAST(3 AS BIGINT)), (CAST(9 AS BIGINT))) AS t(id)");
    TableResult result =
        streaming.executeSql(
            "SELECT c.id, u.name FROM clicks AS c LEFT JOIN db.users "
                + hint
                + " FOR SYSTEM_TIME AS OF c.proc_time AS u ON c.id = u.id");
    List<String> rows = new ArrayList<>();
    try (CloseableIterator<Row> it = result.collect()) {
      it.forEachRemaining(row -> rows.add(row.toString()));
    }
    assertThat(rows).containsExactlyInAnyOrder("+I[1, one]", "+I[3, three]", "+I[9, null]");
    return result.getJobClient().orElseThrow().getJobID();
  }
}
