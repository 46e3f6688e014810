package dev.flinklance.cdc;

import static dev.flinklance.cdc.testing.Inventory.CUSTOMERS;
import static dev.flinklance.cdc.testing.Inventory.customer;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flinklance.sink.dynamic.DynamicRecord;
import dev.flinklance.testing.Await;
import dev.flinklance.testing.Failures;
import dev.flinklance.testing.KafkaTestBroker;
import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.TestClusters;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * With Flink's restarts. A failure after a checkpoint: the job restarts from it, Kafka gives the
 * messages after its offsets again, some of which the failed attempt had already passed on; the
 * table still equals the model, since changes apply by key and the sink's commits are exactly once;
 * in-job compaction (--compaction.enabled) compacts it meanwhile without changing a row.
 */
class LanceCdcSyncFailoverITCase {
  @RegisterExtension static final MiniClusterExtension CLUSTER = TestClusters.withFlinksRestarts();
  @RegisterExtension static final KafkaTestBroker KAFKA = new KafkaTestBroker();

  private static final Duration TIMEOUT = Duration.ofMinutes(3);
  private static final String TOPIC = "dbserver1.inventory.customers";
  private static final int CUSTOMERS_COUNT = 300;

  @TempDir Path dir;

  @Test
  void aFailureAfterACheckpointReplaysMessagesWithoutChangingTheResult() throws Exception {
    String warehouse = dir.resolve("warehouse").toString();
    String token = "cdc-failover-" + System.nanoTime();
    KAFKA.createTopic(TOPIC, 2);
    Map<Integer, String> model = new TreeMap<>();
    List<String[]> snapshot = new ArrayList<>();
    for (int id = 1; id <= CUSTOMERS_COUNT; id++) {
      var row = customer(id, "first" + id, "last" + id, id + "@example.com");
      snapshot.add(new String[] {CUSTOMERS.key(row, true), CUSTOMERS.value("r", null, row, true)});
      model.put(id, id + "@example.com");
    }
    send(snapshot);

    CdcSyncArgs args =
        CdcSyncArgs.parse(
            new String[] {
              "--bootstrap-servers",
              KAFKA.bootstrapServers(),
              "--topics",
              TOPIC,
              "--warehouse",
              warehouse,
              "--database",
              "inventory",
              "--checkpoint-interval",
              "300ms",
              "--compaction.enabled",
              "true",
              "--compaction.trigger.small-fragments",
              "2"
            });
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.enableCheckpointing(args.checkpointInterval.toMillis());
    env.setParallelism(2);
    LanceCdcSyncJob.changes(env, args)
        .map(new Failures.FailAfterCheckpoint<DynamicRecord>(token, 1))
        .sinkTo(args.sink());
    JobClient job = env.executeAsync("Lance CDC sync with a failure");
    String table = warehouse + "/inventory/customers.lance";
    try {
      awaitEmails(table, model, job);

      // every customer changes email, every tenth is deleted; the first record after the next
      // checkpoint fails its task
      List<String[]> changes = new ArrayList<>();
      for (int id = 1; id <= CUSTOMERS_COUNT; id++) {
        var before = customer(id, "first" + id, "last" + id, id + "@example.com");
        var after = customer(id, "first" + id, "last" + id, id + "@example.org");
        changes.add(
            new String[] {CUSTOMERS.key(after, true), CUSTOMERS.value("u", before, after, true)});
        model.put(id, id + "@example.org");
        if (id % 10 == 0) {
          changes.add(
              new String[] {CUSTOMERS.key(after, true), CUSTOMERS.value("d", after, null, true)});
          model.remove(id);
        }
      }
      send(changes);
      awaitEmails(table, model, job);
      assertThat(Failures.fired(token)).as("the injected failure happened").isTrue();
      Await.until(
          "a compaction of " + table,
          TIMEOUT,
          job,
          () ->
              LanceTestTables.commits(table).stream()
                  .anyMatch(commit -> commit.operation().equals("Rewrite")));
      awaitEmails(table, model, job); // compacted, the rows are the same
    } finally {
      Await.cancel(job, TIMEOUT);
    }
  }

  /**
   * A message that is not JSON comes back after every restart: the job fails at once, naming topic,
   * partition and offset, instead of restarting over it.
   */
  @Test
  void anInvalidMessageFailsTheJobWithoutRestarts() throws Exception {
    String topic = "dbserver1.inventory.broken";
    KAFKA.createTopic(topic, 1);
    var row = customer(1, "first", "last", "a@b");
    try (KafkaProducer<String, String> producer = producer()) {
      producer.send(
          new ProducerRecord<>(
              topic, CUSTOMERS.key(row, true), CUSTOMERS.value("c", null, row, true)));
      producer.send(new ProducerRecord<>(topic, CUSTOMERS.key(row, true), "{\"after\": "));
      producer.flush();
    }
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    LanceCdcSyncJob.build(
        env,
        "--bootstrap-servers",
        KAFKA.bootstrapServers(),
        "--topics",
        topic,
        "--warehouse",
        dir.resolve("broken").toString(),
        "--database",
        "inventory",
        "--checkpoint-interval",
        "300ms");
    JobClient job = env.executeAsync("Lance CDC sync of an invalid message");
    try {
      Await.until(
          "the job to fail",
          Duration.ofSeconds(60),
          () -> job.getJobStatus().get().isGloballyTerminalState());
      assertThatThrownBy(() -> job.getJobExecutionResult().get())
          .hasStackTraceContaining(
              "Cannot apply the Debezium message at topic 'dbserver1.inventory.broken', partition"
                  + " 0, offset 1: the value is not JSON");
    } finally {
      if (!job.getJobStatus().get().isGloballyTerminalState()) {
        Await.cancel(job, TIMEOUT);
      }
    }
  }

  private static void awaitEmails(String table, Map<Integer, String> model, JobClient job)
      throws InterruptedException {
    Await.until(
        "the Lance table to hold the model's " + model.size() + " customers",
        TIMEOUT,
        job,
        () -> {
          if (!LanceTestTables.hasVersion(table)) {
            return false;
          }
          Map<Integer, String> actual = new TreeMap<>();
          for (List<Object> row : LanceTestTables.readColumns(table, List.of("id", "email"))) {
            actual.put((Integer) row.get(0), row.get(1).toString());
          }
          return actual.equals(model);
        });
  }

  private static KafkaProducer<String, String> producer() {
    return new KafkaProducer<>(
        Map.of(
            ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.bootstrapServers(),
            ProducerConfig.ACKS_CONFIG, "all",
            ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName(),
            ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName()));
  }

  private static void send(List<String[]> messages) {
    try (KafkaProducer<String, String> producer = producer()) {
      for (String[] message : messages) {
        producer.send(new ProducerRecord<>(TOPIC, message[0], message[1]));
      }
      producer.flush();
    }
  }
}
