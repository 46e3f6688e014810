package dev.flinklance.sink.compat;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;

/**
 * A {@link Sink} whose writers are created from a {@code WriterInitContext} only. Flink 1.20 also
 * declares the creation from an {@code InitContext}, which it never calls for such a sink and Flink
 * 2.0 removed.
 */
@Internal
public interface WriterInitSink<T> extends Sink<T> {
  @Override
  @Deprecated
  default SinkWriter<T> createWriter(InitContext context) {
    throw new UnsupportedOperationException(
        getClass().getName() + " creates its writers from a WriterInitContext");
  }
}
