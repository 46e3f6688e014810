package dev.flinklance.sink.writer;

import dev.flinklance.metrics.LanceMetrics;
import dev.flinklance.sink.LanceSinkConfig;
import java.util.Collection;
import java.util.List;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.sink2.CommittingSinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.util.function.SerializableFunction;

/**
 * The writer of a sink with a primary key: records arrive routed by key (the sink's pre-write
 * routing) and are collapsed by key until the checkpoint ({@link UpsertRows}), which writes the
 * latest rows and hands them on with every key seen. It never commits.
 */
@Internal
public final class UpsertSinkWriter<T> implements CommittingSinkWriter<T, LanceWriteResult> {
  private final SerializableFunction<T, RowData> toRowData;
  private final UpsertRows rows;
  private final WriteFailure failure;

  /**
   * @param rowType the rows' type; the key's columns are written NOT NULL
   */
  public UpsertSinkWriter(
      LanceSinkConfig config,
      RowType rowType,
      SerializableFunction<T, RowData> toRowData,
      WriterInitContext context) {
    this.toRowData = toRowData;
    this.rows = new UpsertRows(config, rowType, context, LanceSinkWriter.isFirstSubtask(context));
    this.failure = new WriteFailure(rows.errors());
    rows.registerGauges(LanceMetrics.tableGroup(context.metricGroup(), config.dataset()));
  }

  @Override
  public void write(T element, Context context) throws InterruptedException {
    failure.guard(() -> rows.write(toRowData.apply(element)));
  }

  /** Rows are written at the checkpoint only: before it, a later change may still replace them. */
  @Override
  public void flush(boolean endOfInput) {
    failure.check();
  }

  @Override
  public Collection<LanceWriteResult> prepareCommit() throws InterruptedException {
    failure.check();
    return rows.prepareCommit().map(List::of).orElse(List.of());
  }

  @Override
  public void close() {
    rows.close();
  }
}
