package dev.flinklance.cdc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flinklance.sink.InvalidRecordPolicy;
import dev.flinklance.sink.dynamic.DynamicRecord;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.SimpleCounter;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.util.Collector;
import org.apache.flink.util.SimpleUserCodeClassLoader;
import org.apache.flink.util.UserCodeClassLoader;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

/** What the Kafka source does with a message it cannot apply: sink.on-invalid-record. */
class DebeziumDeserializerTest {
  private static final byte[] KEY = bytes("{\"id\": 1}");
  private static final byte[] GOOD =
      bytes("{\"after\": {\"id\": 1, \"name\": \"a\"}, \"op\": \"c\"}");
  private static final byte[] BAD = bytes("{\"after\": {\"id\": 1, \"name\": \"a\"");

  private final Counter invalid = new SimpleCounter();
  private final List<DynamicRecord> out = new ArrayList<>();

  @Test
  void anInvalidMessageFailsNamingTopicPartitionAndOffset() throws Exception {
    DebeziumDeserializer deserializer = open(InvalidRecordPolicy.FAIL);
    assertThatThrownBy(() -> deserializer.deserialize(message(42, BAD), collector()))
        .isInstanceOf(InvalidMessageException.class)
        .hasMessageStartingWith(
            "Cannot apply the Debezium message at topic 'dbserver1.inventory.customers',"
                + " partition 3, offset 42: the value is not JSON")
        .hasMessageContaining("sink.on-invalid-record = SKIP");
    assertThat(out).isEmpty();
  }

  @Test
  void withSkipAnInvalidMessageIsCountedAndTheNextOneRead() throws Exception {
    DebeziumDeserializer deserializer = open(InvalidRecordPolicy.SKIP);
    deserializer.deserialize(message(1, BAD), collector());
    deserializer.deserialize(message(2, GOOD), collector());
    assertThat(invalid.getCount()).isEqualTo(1);
    assertThat(out).singleElement().extracting(DynamicRecord::table).isEqualTo("customers");
  }

  private DebeziumDeserializer open(InvalidRecordPolicy policy) {
    DebeziumDeserializer deserializer =
        new DebeziumDeserializer(
            new DebeziumChanges(new TableRouting("lake", null, null, "", "")), policy);
    deserializer.open(
        new DeserializationSchema.InitializationContext() {
          @Override
          public MetricGroup getMetricGroup() {
            return new UnregisteredMetricsGroup() {
              @Override
              public Counter counter(String name) {
                assertThat(name).isEqualTo(DebeziumDeserializer.INVALID_MESSAGES_METRIC);
                return invalid;
              }
            };
          }

          @Override
          public UserCodeClassLoader getUserCodeClassLoader() {
            return SimpleUserCodeClassLoader.create(getClass().getClassLoader());
          }
        });
    return deserializer;
  }

  private static ConsumerRecord<byte[], byte[]> message(long offset, byte[] value) {
    return new ConsumerRecord<>("dbserver1.inventory.customers", 3, offset, KEY, value);
  }

  private Collector<DynamicRecord> collector() {
    return new Collector<>() {
      @Override
      public void collect(DynamicRecord record) {
        out.add(record);
      }

      @Override
      public void close() {}
    };
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
