package dev.flinklance.sink.writer;

import dev.flinklance.arrow.InvalidValueException;
import dev.flinklance.key.PrimaryKey;
import dev.flinklance.key.RowKey;
import dev.flinklance.metrics.LanceMetrics;
import dev.flinklance.sink.LanceSinkConfig;
import dev.flinklance.sink.LanceSinkOptions;
import java.util.Collection;
import java.util.List;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.sink2.CommittingSinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.function.SerializableFunction;
import org.lance.FragmentMetadata;

/**
 * The writer of a sink with a primary key. Records arrive routed by key (the sink's pre-write
 * {@code keyBy}), so every change of a key reaches this one writer, in order. Until the checkpoint
 * it collapses them by key ({@link ChangeBuffer}): INSERT and UPDATE_AFTER make the row the key's
 * latest, DELETE and UPDATE_BEFORE remove the key (a retraction takes back the row it names, so an
 * update that changes a row's key removes the old key; an UPDATE_BEFORE of the same key is
 * superseded by its UPDATE_AFTER). At the checkpoint it writes the latest rows as new fragment
 * files and hands them on with every key it saw: the commit deletes the rows those keys have in the
 * table. It never commits.
 */
@Internal
public final class UpsertSinkWriter<T> implements CommittingSinkWriter<T, LanceWriteResult> {
  private final LanceSinkConfig config;
  private final SerializableFunction<T, RowData> toRowData;
  private final PrimaryKey key;
  private final FragmentWriter fragments;
  private final ChangeBuffer changes;
  private final RecordErrors errors;
  private final WriteFailure failure;
  private final Counter recordsSent;

  /**
   * @param rowType the rows' type; the key's columns are written NOT NULL
   */
  public UpsertSinkWriter(
      LanceSinkConfig config,
      RowType rowType,
      SerializableFunction<T, RowData> toRowData,
      WriterInitContext context) {
    this.config = config;
    this.toRowData = toRowData;
    this.key = config.primaryKey().orElseThrow();
    this.recordsSent = context.metricGroup().getNumRecordsSendCounter();
    this.errors = new RecordErrors(config, rowType, context);
    this.failure = new WriteFailure(errors);
    RowType keyedRows = key.withKeysNotNull(rowType);
    this.fragments = new FragmentWriter(config, keyedRows, context);
    try {
      this.changes =
          new ChangeBuffer(
              fragments.allocator(),
              keyedRows,
              fragments.tableSchema(),
              config.maxBufferBytes() / 2);
    } catch (RuntimeException e) {
      fragments.close();
      throw e;
    }
    MetricGroup metrics = LanceMetrics.tableGroup(context.metricGroup(), config.dataset());
    metrics.gauge("arrowPeakBytes", fragments::peakBytes);
    metrics.gauge("bufferedKeys", changes::keys);
    metrics.gauge("changeBufferBytes", changes::bytes);
  }

  @Override
  public void write(T element, Context context) throws InterruptedException {
    failure.guard(() -> write(element));
  }

  private void write(T element) {
    errors.next();
    RowData row = toRowData.apply(element);
    String nullColumn = key.nullColumn(row);
    if (nullColumn != null) {
      errors.reject(
          errors.error(
              "cannot apply", row, ": its primary key column '" + nullColumn + "' is NULL", null));
      return;
    }
    RowKey rowKey = key.keyOf(row);
    if (row.getRowKind() == RowKind.DELETE || row.getRowKind() == RowKind.UPDATE_BEFORE) {
      changes.delete(rowKey);
    } else {
      try {
        changes.upsert(rowKey, row);
      } catch (InvalidValueException e) {
        errors.reject(errors.error("cannot write", row, ": " + e.getMessage(), e));
        return;
      }
    }
    recordsSent.inc();
    if (changes.bytes() > config.upsertMaxBufferBytes() && !changes.compact()) {
      throw bufferFull();
    }
  }

  private ChangeBufferFullException bufferFull() {
    return new ChangeBufferFullException(
        String.format(
            "Lance sink for '%s': the changes of %s since its last checkpoint (%d keys, %s) do not"
                + " fit %s = %s. Take checkpoints more often, raise the sink's parallelism, or"
                + " raise %s (and the TaskManager's memory).",
            config.dataset(),
            errors.subtask(),
            changes.keys(),
            new MemorySize(changes.bytes()).toHumanReadableString(),
            LanceSinkOptions.SINK_UPSERT_MAX_BUFFER_SIZE.key(),
            new MemorySize(config.upsertMaxBufferBytes()),
            LanceSinkOptions.SINK_UPSERT_MAX_BUFFER_SIZE.key()));
  }

  /** Rows are written at the checkpoint only: before it, a later change may still replace them. */
  @Override
  public void flush(boolean endOfInput) {
    failure.check();
  }

  @Override
  public Collection<LanceWriteResult> prepareCommit() throws InterruptedException {
    failure.check();
    List<RowKey> changed = changes.drainTo(fragments);
    List<FragmentMetadata> written = fragments.finish();
    return changed.isEmpty() ? List.of() : List.of(new LanceWriteResult(written, changed));
  }

  @Override
  public void close() {
    try {
      changes.close();
    } finally {
      fragments.close();
    }
  }
}
