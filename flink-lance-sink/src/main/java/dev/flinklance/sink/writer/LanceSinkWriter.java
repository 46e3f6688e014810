package dev.flinklance.sink.writer;

import dev.flinklance.arrow.InvalidValueException;
import dev.flinklance.metrics.LanceMetrics;
import dev.flinklance.sink.LanceSinkConfig;
import java.util.Collection;
import java.util.List;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.sink2.CommittingSinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.function.SerializableFunction;
import org.lance.FragmentMetadata;

/**
 * Turns records into Arrow batches and streams them into one Lance fragment file per checkpoint
 * ({@link FragmentWriter}). At each checkpoint it finishes the file and hands its metadata to the
 * committer. It never commits.
 */
@Internal
public final class LanceSinkWriter<T> implements CommittingSinkWriter<T, LanceWriteResult> {
  private final SerializableFunction<T, RowData> toRowData;
  private final FragmentWriter fragments;
  private final RecordErrors errors;
  private final WriteFailure failure;
  private final Counter recordsSent;

  public LanceSinkWriter(
      LanceSinkConfig config,
      RowType rowType,
      SerializableFunction<T, RowData> toRowData,
      WriterInitContext context) {
    this.toRowData = toRowData;
    this.recordsSent = context.metricGroup().getNumRecordsSendCounter();
    this.errors = new RecordErrors(config, rowType, context);
    this.failure = new WriteFailure(errors);
    this.fragments = new FragmentWriter(config, rowType, context);
    MetricGroup metrics = LanceMetrics.tableGroup(context.metricGroup(), config.dataset());
    metrics.gauge("arrowPeakBytes", fragments::peakBytes);
    metrics.gauge("bufferedRows", fragments::bufferedRows);
  }

  @Override
  public void write(T element, Context context) throws InterruptedException {
    failure.guard(() -> write(element));
  }

  private void write(T element) throws InterruptedException {
    errors.next();
    RowData row = toRowData.apply(element);
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
  public void flush(boolean endOfInput) throws InterruptedException {
    failure.check();
    fragments.flush();
  }

  @Override
  public Collection<LanceWriteResult> prepareCommit() throws InterruptedException {
    failure.check();
    List<FragmentMetadata> written = fragments.finish();
    return written.isEmpty() ? List.of() : List.of(new LanceWriteResult(written));
  }

  @Override
  public void close() {
    fragments.close();
  }
}
