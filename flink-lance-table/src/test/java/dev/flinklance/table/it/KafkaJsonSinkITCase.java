package dev.flinklance.table.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flinklance.table.testing.Sql;
import dev.flinklance.table.testing.TableTestCluster;
import dev.flinklance.testing.KafkaTestBroker;
import dev.flinklance.testing.LanceTestTables;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kafka with Flink's JSON format and {@code 'json.ignore-parse-errors' = 'true'} into a Lance
 * table: the format calls the operators chained after it (the appending writer among them) inside
 * its parse-error handler, so it swallows what the writer throws for a bad record. The job must
 * still fail, naming the table, the column and the record, and commit nothing after the record.
 */
class KafkaJsonSinkITCase {
  @RegisterExtension static final MiniClusterExtension CLUSTER = TableTestCluster.create();
  @RegisterExtension static final KafkaTestBroker KAFKA = new KafkaTestBroker();

  @TempDir Path dir;

  @Test
  void aRecordTheWriterRejectsFailsTheJobThoughTheFormatSwallowsTheFailure() {
    KAFKA.createTopic("vectors", 1);
    KAFKA.send(
        "vectors",
        List.of(
            "{\"id\": 1, \"vec\": [1.0, 2.0, 3.0]}",
            "{\"id\": 2, \"vec\": [1.0, 2.0]}", // a vector of the wrong dimension
            "{\"id\": 3, \"vec\": [4.0, 5.0, 6.0]}"));
    String path = dir.resolve("vectors").toString();
    TableEnvironment env = Sql.streaming(Duration.ofMillis(200));
    env.getConfig().set("table.exec.resource.default-parallelism", "1");
    Sql.exec(
        env,
        "CREATE TABLE src (id BIGINT, vec ARRAY<FLOAT>) WITH ('connector' = 'kafka',"
            + " 'topic' = 'vectors', 'properties.bootstrap.servers' = '"
            + KAFKA.bootstrapServers()
            + "', 'properties.group.id' = 'lance-test', 'scan.startup.mode' = 'earliest-offset',"
            + " 'scan.bounded.mode' = 'latest-offset', 'format' = 'json',"
            + " 'json.ignore-parse-errors' = 'true')");
    Sql.exec(
        env,
        "CREATE TABLE vectors (id BIGINT, vec ARRAY<FLOAT>) WITH ('connector' = 'lance',"
            + " 'path' = '"
            + path
            + "', 'vector-columns' = 'vec:3')");

    assertThatThrownBy(() -> Sql.exec(env, "INSERT INTO vectors SELECT * FROM src"))
        .hasStackTraceContaining("record #2 of subtask 0 of 1 failed, yet the job went on")
        .hasStackTraceContaining(path)
        .hasStackTraceContaining("'vec'");
    assertThat(LanceTestTables.readLongs(path, "id"))
        .as("nothing committed after the record that failed")
        .doesNotContain(2L, 3L);
  }
}
