package dev.flinklance.table.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flinklance.table.testing.Sql;
import dev.flinklance.testing.KafkaTestBroker;
import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.TestClusters;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kafka with Flink's JSON format into a Lance table with a vector column, where the second record's
 * vector has the wrong dimension. The format calls the operators chained after it (the appending
 * writer among them) inside its parse-error handler: with {@code 'json.ignore-parse-errors' =
 * 'true'} it swallows what the writer throws, without it it wraps it ("Failed to deserialize
 * JSON"). Either way the job fails with a message naming the table, the column and the record's
 * values, and nothing after the record is committed.
 */
class KafkaJsonSinkITCase {
  @RegisterExtension static final MiniClusterExtension CLUSTER = TestClusters.withoutRestarts();
  @RegisterExtension static final KafkaTestBroker KAFKA = new KafkaTestBroker();

  private static final List<String> RECORDS =
      List.of(
          "{\"id\": 1, \"vec\": [1.0, 2.0, 3.0]}",
          "{\"id\": 2, \"vec\": [1.0, 2.0]}",
          "{\"id\": 3, \"vec\": [4.0, 5.0, 6.0]}");

  @TempDir Path dir;

  @Test
  void aRecordTheWriterRejectsFailsTheJobThoughTheFormatSwallowsTheFailure() {
    String path = dir.resolve("vectors").toString();
    assertThatThrownBy(() -> insert("swallowed", path, true))
        .hasStackTraceContaining("record #2 of subtask 0 of 1 failed, yet the job went on")
        .hasStackTraceContaining(path)
        .hasStackTraceContaining("'vec'");
    assertThat(LanceTestTables.readLongs(path, "id"))
        .as("nothing committed after the record that failed")
        .doesNotContain(2L, 3L);
  }

  /** The root of the chain, which users see first, is the sink's: table, column, values. */
  @Test
  void theFailureUnderTheFormatsOwnSaysWhatFailed() {
    String path = dir.resolve("vectors").toString();
    assertThatThrownBy(() -> insert("wrapped", path, false))
        .hasStackTraceContaining("Failed to deserialize JSON")
        .rootCause()
        .hasMessageContaining("Lance sink for '" + path + "' cannot write record #2 of subtask 0")
        .hasMessageContaining("'vec'")
        .hasMessageContaining("Record: +I[2, [1.0, 2.0]]");
    assertThat(LanceTestTables.readLongs(path, "id")).doesNotContain(2L, 3L);
  }

  private static void insert(String topic, String path, boolean ignoreParseErrors) {
    KAFKA.createTopic(topic, 1);
    KAFKA.send(topic, RECORDS);
    TableEnvironment env = Sql.streaming(Duration.ofMillis(200));
    env.getConfig().set("table.exec.resource.default-parallelism", "1");
    Sql.exec(
        env,
        "CREATE TABLE src (id BIGINT, vec ARRAY<FLOAT>) WITH ('connector' = 'kafka',"
            + " 'topic' = '"
            + topic
            + "', 'properties.bootstrap.servers' = '"
            + KAFKA.bootstrapServers()
            + "', 'properties.group.id' = 'lance-test', 'scan.startup.mode' = 'earliest-offset',"
            + " 'scan.bounded.mode' = 'latest-offset', 'format' = 'json',"
            + " 'json.ignore-parse-errors' = '"
            + ignoreParseErrors
            + "')");
    Sql.exec(
        env,
        "CREATE TABLE vectors (id BIGINT, vec ARRAY<FLOAT>) WITH ('connector' = 'lance',"
            + " 'path' = '"
            + path
            + "', 'vector-columns' = 'vec:3')");
    Sql.exec(env, "INSERT INTO vectors SELECT * FROM src");
  }
}
