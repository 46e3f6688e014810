package dev.flinklance.table.it;

import static dev.flinklance.table.testing.Sql.exec;
import static dev.flinklance.table.testing.Sql.query;
import static dev.flinklance.table.testing.Sql.queryStrings;
import static org.assertj.core.api.Assertions.assertThat;

import dev.flinklance.table.testing.Sql;
import dev.flinklance.testing.Failures;
import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.LanceTestTables.Commit;
import dev.flinklance.testing.TestClusters;
import dev.flinklance.testing.TestTables;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.stream.LongStream;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The 'lance' connector in SQL: the statements of the connector's example, end to end. */
class SqlConnectorITCase {
  private static final int ROWS = 2_000;

  @RegisterExtension static final MiniClusterExtension CLUSTER = TestClusters.withoutRestarts();

  @TempDir Path dir;

  private String eventsDdl(String path) {
    return "CREATE TABLE events (id BIGINT NOT NULL, name STRING, ts TIMESTAMP_LTZ(3),"
        + " embedding ARRAY<FLOAT NOT NULL>) WITH ('connector' = 'lance', 'path' = 'file://"
        + path
        + "', 'vector-columns' = 'embedding:768')";
  }

  private static String generator(int rows, int rowsPerSecond) {
    return "CREATE TEMPORARY TABLE gen (id BIGINT NOT NULL) WITH ('connector' = 'datagen',"
        + " 'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '"
        + rows
        + "', 'number-of-rows' = '"
        + rows
        + "', 'rows-per-second' = '"
        + rowsPerSecond
        + "')";
  }

  private static final String INSERT =
      "INSERT INTO events SELECT id, CONCAT('name-', CAST(id AS STRING)),"
          + " TO_TIMESTAMP_LTZ(id * 1000, 3), vec(id, 768) FROM gen";

  @Test
  void streamingInsertCommitsPerCheckpointThenBatchQueriesPushDown() {
    String path = dir.resolve("events").toString();
    TableEnvironment streaming = Sql.streaming(Duration.ofMillis(200));
    exec(streaming, eventsDdl(path));
    exec(streaming, generator(ROWS, 1_000)); // two seconds: several checkpoints
    exec(streaming, INSERT);

    assertThat(LanceTestTables.readLongs(path, "id"))
        .containsExactlyInAnyOrderElementsOf(LongStream.rangeClosed(1, ROWS).boxed().toList());
    List<Commit> commits = LanceTestTables.sinkCommits(path);
    assertThat(commits).as("one Lance transaction per checkpoint").hasSizeGreaterThan(1);
    assertThat(commits).extracting(Commit::checkpointId).doesNotHaveDuplicates();

    TableEnvironment batch = Sql.batch();
    exec(batch, eventsDdl(path));
    String select = "SELECT id, name FROM events WHERE id > 10 AND name LIKE 'name-2%' LIMIT 5";
    assertThat(batch.explainSql(select))
        .contains("filter=[and(>(id, 10), LIKE(name, _UTF-16LE'name-2%'))]")
        .contains("limit=[5]")
        .contains("project=[id, name]");
    List<Row> rows = query(batch, select);
    assertThat(rows).hasSize(5);
    assertThat(rows)
        .allSatisfy(
            row -> {
              assertThat((Long) row.getField(0)).isGreaterThan(10);
              assertThat((String) row.getField(1))
                  .isEqualTo("name-" + row.getField(0))
                  .startsWith("name-2");
            });

    long firstCommit = commits.get(0).version();
    List<Long> atFirstCommit = TestTables.readLongsAt(path, "id", firstCommit);
    assertThat(
            query(
                    batch,
                    "SELECT id FROM events /*+ OPTIONS('scan.version' = '" + firstCommit + "') */")
                .stream()
                .map(row -> (Long) row.getField(0))
                .toList())
        .isNotEmpty()
        .hasSizeLessThan(ROWS)
        .containsExactlyInAnyOrderElementsOf(atFirstCommit);

    Row full = query(batch, "SELECT * FROM events WHERE id = 7").get(0);
    assertThat(full.getField(1)).isEqualTo("name-7");
    assertThat(full.getField(2)).hasToString("1970-01-01T00:00:07Z");
    assertThat((Float[]) full.getField(3)).hasSize(768).startsWith(7f, 7.001f);
  }

  @Test
  void batchInsertCommitsOnceAtEndOfInput() {
    String path = dir.resolve("events").toString();
    TableEnvironment batch = Sql.batch();
    exec(batch, eventsDdl(path));
    exec(batch, generator(500, 1_000_000));
    exec(batch, INSERT);

    assertThat(LanceTestTables.readLongs(path, "id"))
        .containsExactlyInAnyOrderElementsOf(LongStream.rangeClosed(1, 500).boxed().toList());
    assertThat(LanceTestTables.sinkCommits(path)).hasSize(1);
    assertThat(queryStrings(batch, "SELECT COUNT(*) FROM events")).containsExactly("+I[500]");
  }

  @Test
  void insertOverwriteReplacesTheRowsInOneStampedOverwrite() {
    String path = dir.resolve("events").toString();
    TableEnvironment batch = Sql.batch();
    exec(batch, eventsDdl(path));
    exec(batch, generator(300, 1_000_000));
    exec(batch, INSERT);
    long before = LanceTestTables.latestVersion(path);

    exec(
        batch,
        "INSERT OVERWRITE events SELECT id + 1000, name, ts, embedding FROM events WHERE id <= 3");

    assertThat(LanceTestTables.readLongs(path, "id"))
        .containsExactlyInAnyOrder(1001L, 1002L, 1003L);
    assertThat(LanceTestTables.latestVersion(path)).isEqualTo(before + 1);
    Commit overwrite = LanceTestTables.sinkCommits(path).get(1);
    assertThat(overwrite.operation()).isEqualTo("Overwrite");
    assertThat(overwrite.version()).isEqualTo(before + 1);
  }

  /** A failure in the middle of a streaming INSERT: restored from the checkpoint, no row twice. */
  @Test
  void streamingInsertIsExactlyOnceAcrossAFailure() {
    String path = dir.resolve("events").toString();
    String token = UUID.randomUUID().toString();
    TableEnvironment streaming = Sql.streaming(Duration.ofMillis(100));
    Sql.restartOnce(streaming);
    exec(streaming, eventsDdl(path));
    exec(streaming, generator(ROWS, 1_000));
    exec(
        streaming,
        INSERT.replace(
            "SELECT id,", "SELECT fail_once('" + token + "', id, " + ROWS * 3 / 4 + "),"));

    assertThat(Failures.fired(token)).isTrue();
    assertThat(LanceTestTables.readLongs(path, "id"))
        .containsExactlyInAnyOrderElementsOf(LongStream.rangeClosed(1, ROWS).boxed().toList());
  }
}
