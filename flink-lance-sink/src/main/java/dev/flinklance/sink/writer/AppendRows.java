package dev.flinklance.sink.writer;

import dev.flinklance.arrow.InvalidValueException;
import dev.flinklance.key.RowKey;
import dev.flinklance.sink.LanceSinkConfig;
import java.util.List;
import java.util.Optional;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.RowKind;
import org.lance.FragmentMetadata;

/**
 * Rows appended to one table: streamed into one Lance fragment file per checkpoint ({@link
 * FragmentWriter}).
 */
final class AppendRows implements TableRows {
  private final FragmentWriter fragments;
  private final RecordErrors errors;
  private final Counter recordsSent;

  AppendRows(LanceSinkConfig config, RowType rowType, WriterInitContext context, boolean creator) {
    this.recordsSent = context.metricGroup().getNumRecordsSendCounter();
    this.errors = new RecordErrors(config, rowType, context);
    this.fragments = new FragmentWriter(config, rowType, context, creator);
  }

  RecordErrors errors() {
    return errors;
  }

  @Override
  public void write(RowData row) throws InterruptedException {
    errors.next();
    if (row.getRowKind() == RowKind.DELETE || row.getRowKind() == RowKind.UPDATE_BEFORE) {
      throw errors.error(
          "appends rows and cannot apply",
          row,
          " with row kind "
              + row.getRowKind()
              + " (a sink with a primary key applies changes by key)",
          null);
    }
    try {
      fragments.write(row);
    } catch (InvalidValueException e) {
      // The row was not counted: the next one overwrites what it left in the batch.
      errors.reject(errors.error("cannot write", row, ": " + e.getMessage(), e));
      return;
    }
    recordsSent.inc();
  }

  @Override
  public void flush() throws InterruptedException {
    fragments.flush();
  }

  @Override
  public Optional<LanceWriteResult> prepareCommit() throws InterruptedException {
    List<FragmentMetadata> written = fragments.finish();
    return written.isEmpty() ? Optional.empty() : Optional.of(new LanceWriteResult(written));
  }

  @Override
  public void supersede(RowKey key) {
    throw new UnsupportedOperationException("appended rows have no key");
  }

  @Override
  public void registerGauges(MetricGroup group) {
    group.gauge("arrowPeakBytes", fragments::peakBytes);
    group.gauge("bufferedRows", fragments::bufferedRows);
  }

  @Override
  public long bufferedBytes() {
    return fragments.bufferedBytes();
  }

  @Override
  public void close() {
    fragments.close();
  }
}
