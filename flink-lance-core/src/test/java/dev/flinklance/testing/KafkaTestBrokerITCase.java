package dev.flinklance.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The in-process broker on 127.0.0.1: a topic created, records sent and read back in order. */
class KafkaTestBrokerITCase {
  @RegisterExtension static final KafkaTestBroker KAFKA = new KafkaTestBroker();

  @Test
  void recordsSentAreReadBackInOrder() throws InterruptedException {
    assertThat(KAFKA.bootstrapServers()).startsWith("127.0.0.1:");
    KAFKA.createTopic("events", 1);
    List<String> sent = List.of("one", "two", "three");
    KAFKA.send("events", sent);

    List<String> read = new ArrayList<>();
    TopicPartition partition = new TopicPartition("events", 0);
    try (KafkaConsumer<String, String> consumer =
        new KafkaConsumer<>(
            Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.bootstrapServers(),
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName(),
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
                    StringDeserializer.class.getName()))) {
      consumer.assign(List.of(partition));
      consumer.seekToBeginning(List.of(partition));
      Await.until(
          sent.size() + " records",
          Duration.ofSeconds(60),
          () -> {
            for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
              read.add(record.value());
            }
            return read.size() >= sent.size();
          },
          () -> "read " + read);
    }
    assertThat(read).isEqualTo(sent);
  }
}
