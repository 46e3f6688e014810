package dev.flinklance.cdc;

import dev.flinklance.sink.InvalidRecordPolicy;
import dev.flinklance.sink.dynamic.DynamicRecord;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.metrics.Counter;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Kafka source's reading of a Debezium message (key and value bytes) as a {@link
 * DynamicRecord}. A message it cannot apply fails the job, without restarts, naming topic,
 * partition and offset, or, with {@code sink.on-invalid-record = SKIP}, is logged so and counted in
 * {@value #INVALID_MESSAGES_METRIC}.
 */
@Internal
final class DebeziumDeserializer implements KafkaRecordDeserializationSchema<DynamicRecord> {
  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(DebeziumDeserializer.class);

  static final String INVALID_MESSAGES_METRIC = "numInvalidMessages";

  private final DebeziumChanges changes;
  private final InvalidRecordPolicy onInvalid;
  private transient Counter invalidMessages;

  DebeziumDeserializer(DebeziumChanges changes, InvalidRecordPolicy onInvalid) {
    this.changes = changes;
    this.onInvalid = onInvalid;
  }

  @Override
  public void open(DeserializationSchema.InitializationContext context) {
    invalidMessages = context.getMetricGroup().counter(INVALID_MESSAGES_METRIC);
  }

  @Override
  public void deserialize(ConsumerRecord<byte[], byte[]> message, Collector<DynamicRecord> out) {
    try {
      changes.parse(message.topic(), message.key(), message.value()).ifPresent(out::collect);
    } catch (InvalidMessageException e) {
      String problem =
          String.format(
              "Debezium message at topic '%s', partition %d, offset %d: %s",
              message.topic(), message.partition(), message.offset(), e.getMessage());
      if (onInvalid == InvalidRecordPolicy.FAIL) {
        throw new InvalidMessageException(
            "Cannot apply the " + problem + " (sink.on-invalid-record = SKIP skips such messages)",
            e);
      }
      invalidMessages.inc();
      LOG.warn("Skipped the {}", problem);
    }
  }

  @Override
  public TypeInformation<DynamicRecord> getProducedType() {
    return TypeInformation.of(DynamicRecord.class);
  }
}
