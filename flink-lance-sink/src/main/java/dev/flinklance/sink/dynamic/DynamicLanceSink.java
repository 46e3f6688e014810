package dev.flinklance.sink.dynamic;

import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;

/** TEMPORARY STUB (reverted before merging main). */
@PublicEvolving
public final class DynamicLanceSink implements Sink<DynamicRecord> {
  @Override
  public SinkWriter<DynamicRecord> createWriter(WriterInitContext context) {
    throw new UnsupportedOperationException("stub");
  }
}
