package dev.flinklance.sink.testing;

import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessage;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessageTypeInfo;
import org.apache.flink.streaming.util.AbstractStreamOperatorTestHarness;
import org.apache.flink.util.function.SerializableSupplier;

/**
 * Sets up a test harness whose operator emits committable messages with the serializer a job uses
 * for them. Without one the harness copies its output with Kryo, which Flink 1.20's Kryo 2 cannot
 * do for records.
 */
public final class CommittableOutput {
  private CommittableOutput() {}

  public static <T> void setUp(
      AbstractStreamOperatorTestHarness<CommittableMessage<T>> harness,
      SerializableSupplier<SimpleVersionedSerializer<T>> serializer) {
    TypeSerializer<CommittableMessage<T>> messages =
        CommittableMessageTypeInfo.of(serializer).createSerializer(new SerializerConfigImpl());
    harness.setup(messages);
  }
}
