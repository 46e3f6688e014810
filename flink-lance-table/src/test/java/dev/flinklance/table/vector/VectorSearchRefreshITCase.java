package dev.flinklance.table.vector;

import static dev.flinklance.table.testing.Sql.exec;
import static org.assertj.core.api.Assertions.assertThat;

import dev.flinklance.table.testing.Sql;
import dev.flinklance.table.testing.VectorData;
import dev.flinklance.testing.Await;
import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.TestClusters;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.config.ExecutionConfigOptions;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * An enrichment job keeps searching a table while another job's sink writes into it: rows committed
 * before a refresh are found after it ({@code vector-search.refresh-interval}); a search with
 * refresh off keeps searching the version it started with.
 */
class VectorSearchRefreshITCase {
  private static final long NEW_IDS = 1_000_000;

  @RegisterExtension static final MiniClusterExtension CLUSTER = TestClusters.withoutRestarts();

  @TempDir Path dir;

  /** A result of the lookup job and when it arrived. */
  private record Seen(String mode, long id, double score, long atNanos) {}

  private static void createDocs(TableEnvironment env, String name, String path, String options) {
    exec(
        env,
        "CREATE TABLE "
            + name
            + " (id BIGINT, category STRING, embedding ARRAY<FLOAT NOT NULL>) WITH ('connector' ="
            + " 'lance', 'path' = '"
            + path
            + "'"
            + options
            + ")");
  }

  @Test
  @Timeout(value = 180, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void rowsCommittedByAConcurrentSinkAreFoundAfterTheRefresh() throws Exception {
    String docs = dir.resolve("docs").toString();
    VectorData.writeDocs(docs, VectorData.clustered(200, 8, 4, 9), 100);
    long startVersion = LanceTestTables.latestVersion(docs);

    TableEnvironment lookup =
        Sql.streaming(Duration.ofMillis(100)); // collect() emits per checkpoint
    Configuration config = lookup.getConfig().getConfiguration();
    config.set(ExecutionConfigOptions.TABLE_EXEC_RESOURCE_DEFAULT_PARALLELISM, 1);
    createDocs(lookup, "refreshed", docs, ", 'vector-search.refresh-interval' = '1 s'");
    createDocs(lookup, "pinned", docs, ", 'vector-search.refresh-interval' = '0 s'");
    exec(
        lookup,
        "CREATE TEMPORARY TABLE gen (qid BIGINT NOT NULL) WITH ('connector' = 'datagen',"
            + " 'fields.qid.kind' = 'random', 'rows-per-second' = '20')");
    // vec(50, 8) = [50, 50.001, ...]: far from every row written above, equal to the new ones
    exec(lookup, "CREATE TEMPORARY VIEW q AS SELECT qid, vec(qid * 0 + 50, 8) AS vec FROM gen");
    TableResult searching =
        lookup.executeSql(
            "SELECT 'refreshed', id, score FROM q, LATERAL TABLE(VECTOR_SEARCH(TABLE refreshed,"
                + " DESCRIPTOR(embedding), q.vec, 1)) UNION ALL SELECT 'pinned', id, score FROM q,"
                + " LATERAL TABLE(VECTOR_SEARCH(TABLE pinned, DESCRIPTOR(embedding), q.vec, 1))");

    List<Seen> seen = new ArrayList<>();
    try (CloseableIterator<Row> results = searching.collect()) {
      while (seen.size() < 20) {
        seen.add(seen(results.next()));
      }
      TableEnvironment writer = Sql.streaming(Duration.ofMillis(300));
      writer
          .getConfig()
          .getConfiguration()
          .set(ExecutionConfigOptions.TABLE_EXEC_RESOURCE_DEFAULT_PARALLELISM, 1);
      createDocs(writer, "docs", docs, "");
      exec(
          writer,
          "CREATE TEMPORARY TABLE more (n BIGINT NOT NULL) WITH ('connector' = 'datagen', 'fields.n.kind'"
              + " = 'sequence', 'fields.n.start' = '0', 'fields.n.end' = '4')");
      TableResult insert =
          writer.executeSql(
              "INSERT INTO docs SELECT " + NEW_IDS + " + n, 'new', vec(n * 0 + 50, 8) FROM more");
      int[] beforeCommit = {seen.size()};
      Await.until(
          "the sink's commit",
          Duration.ofSeconds(60),
          () -> {
            if (LanceTestTables.latestVersion(docs) != startVersion) {
              return true;
            }
            // what arrived before a check that saw no commit was searched before the commit; the
            // result next() blocks for may already come from after it
            beforeCommit[0] = seen.size();
            seen.add(seen(results.next()));
            return false;
          });
      long committedAt = System.nanoTime();
      for (int i = 0; i < 200; i++) {
        seen.add(seen(results.next()));
      }
      insert.await();

      long refreshDue = committedAt + Duration.ofSeconds(1).toNanos();
      assertThat(seen.subList(0, beforeCommit[0]))
          .as("before the commit")
          .allSatisfy(s -> assertThat(s.id()).isLessThan(NEW_IDS));
      List<Seen> refreshed = seen.stream().filter(s -> s.mode().equals("refreshed")).toList();
      Seen firstNew = refreshed.stream().filter(s -> s.id() >= NEW_IDS).findFirst().orElseThrow();
      assertThat(firstNew.score()).as("the committed row is the query vector itself").isZero();
      assertThat(firstNew.atNanos() - refreshDue)
          .as("found within a few seconds of its refresh")
          .isLessThan(Duration.ofSeconds(10).toNanos());
      assertThat(refreshed.subList(refreshed.indexOf(firstNew), refreshed.size()))
          .as("every later search finds the committed rows")
          .allSatisfy(s -> assertThat(s.id()).isGreaterThanOrEqualTo(NEW_IDS));
      assertThat(seen.subList(beforeCommit[0], seen.size()))
          .filteredOn(s -> s.mode().equals("pinned"))
          .as("without refresh the search stays on its version")
          .isNotEmpty()
          .allSatisfy(s -> assertThat(s.id()).isLessThan(NEW_IDS));
    }
  }

  private static Seen seen(Row row) {
    return new Seen(
        (String) row.getField(0),
        (Long) row.getField(1),
        (Double) row.getField(2),
        System.nanoTime());
  }
}
