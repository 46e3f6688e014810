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
 * Turns records into Arrow batches and streams them into one Lance fragment file per checkpoint
 * ({@link AppendRows}). At each checkpoint it finishes the file and hands its metadata to the
 * committer. It never commits.
 */
@Internal
public final class LanceSinkWriter<T> implements CommittingSinkWriter<T, LanceWriteResult> {
  private final SerializableFunction<T, RowData> toRowData;
  private final AppendRows rows;
  private final WriteFailure failure;

  public LanceSinkWriter(
      LanceSinkConfig config,
      RowType rowType,
      SerializableFunction<T, RowData> toRowData,
      WriterInitContext context) {
    this.toRowData = toRowData;
    this.rows = new AppendRows(config, rowType, context, isFirstSubtask(context));
    this.failure = new WriteFailure(rows.errors());
    rows.registerGauges(LanceMetrics.tableGroup(context.metricGroup(), config.dataset()));
  }

  /** Subtask 0 creates a missing table at once; the others wait for it first. */
  static boolean isFirstSubtask(WriterInitContext context) {
    return context.getTaskInfo().getIndexOfThisSubtask() == 0;
  }

  @Override
  public void write(T element, Context context) throws InterruptedException {
    failure.guard(() -> rows.write(toRowData.apply(element)));
  }

  @Override
  public void flush(boolean endOfInput) throws InterruptedException {
    failure.check();
    rows.flush();
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
