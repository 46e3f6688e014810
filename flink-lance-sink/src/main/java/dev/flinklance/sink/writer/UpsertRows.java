package dev.flinklance.sink.writer;

import dev.flinklance.arrow.InvalidValueException;
import dev.flinklance.key.PrimaryKey;
import dev.flinklance.key.RowKey;
import dev.flinklance.sink.LanceSinkConfig;
import dev.flinklance.sink.LanceSinkOptions;
import dev.flinklance.sink.keys.KeyFiles;
import java.util.List;
import java.util.Optional;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.RowKind;
import org.lance.FragmentMetadata;

/**
 * Changes applied by key to one table. Records arrive routed by key, so every change of a key
 * reaches this one writer, in order. Until the checkpoint they are collapsed by key ({@link
 * ChangeBuffer}): INSERT and UPDATE_AFTER make the row the key's latest, DELETE and UPDATE_BEFORE
 * remove the key (a retraction takes back the row it names, so an update that changes a row's key
 * removes the old key; an UPDATE_BEFORE of the same key is superseded by its UPDATE_AFTER). At the
 * checkpoint the latest rows become new fragment files, handed on with every key seen (in a key
 * file when they are many, {@link KeyFiles}): the commit deletes the rows those keys have in the
 * table.
 */
final class UpsertRows implements TableRows {
  private final LanceSinkConfig config;
  private final PrimaryKey key;
  private final FragmentWriter fragments;
  private final ChangeBuffer changes;
  private final RecordErrors errors;
  private final Counter recordsSent;
  private final KeyFiles keyFiles;
  private final long maxInlineKeysBytes;

  /**
   * @param rowType the rows' type; the key's columns are written NOT NULL
   */
  UpsertRows(LanceSinkConfig config, RowType rowType, WriterInitContext context, boolean creator) {
    this.config = config;
    this.key = config.primaryKey().orElseThrow();
    this.recordsSent = context.metricGroup().getNumRecordsSendCounter();
    this.errors = new RecordErrors(config, rowType, context);
    this.keyFiles = new KeyFiles(config.dataset());
    // the subtasks' inline keys all end up in one committable
    this.maxInlineKeysBytes =
        config.upsertMaxInlineKeysBytes() / context.getTaskInfo().getNumberOfParallelSubtasks();
    RowType keyedRows = key.withKeysNotNull(rowType);
    this.fragments = new FragmentWriter(config, keyedRows, context, creator);
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
  }

  RecordErrors errors() {
    return errors;
  }

  @Override
  public void write(RowData row) {
    errors.next();
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
  public void flush() {}

  @Override
  public Optional<LanceWriteResult> prepareCommit() throws InterruptedException {
    List<RowKey> changed = changes.drainTo(fragments);
    List<FragmentMetadata> written = fragments.finish();
    return changed.isEmpty()
        ? Optional.empty()
        : Optional.of(new LanceWriteResult(written, keyFiles.hold(changed, maxInlineKeysBytes)));
  }

  /** No row of this writer for {@code key}; the key stays among those the commit removes. */
  @Override
  public void supersede(RowKey rowKey) {
    changes.delete(rowKey);
  }

  @Override
  public void registerGauges(MetricGroup group) {
    group.gauge("arrowPeakBytes", fragments::peakBytes);
    group.gauge("bufferedKeys", changes::keys);
    group.gauge("changeBufferBytes", changes::bytes);
  }

  @Override
  public long bufferedBytes() {
    return changes.bytes();
  }

  @Override
  public void close() {
    try (keyFiles) {
      changes.close();
    } finally {
      fragments.close();
    }
  }
}
