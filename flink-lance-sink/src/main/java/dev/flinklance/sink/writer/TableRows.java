package dev.flinklance.sink.writer;

import dev.flinklance.key.RowKey;
import dev.flinklance.sink.LanceSinkConfig;
import java.util.Optional;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;

/**
 * One writer subtask's rows for one table since its last checkpoint: appended ({@link AppendRows})
 * or applied by key ({@link UpsertRows}). The single-table writers hold one; the dynamic sink's
 * writer one per table it writes. Registers no metrics: its owner does ({@link #registerGauges}).
 */
@Internal
public interface TableRows extends AutoCloseable {

  /**
   * Opens the table, or creates it with the rows' schema (and the sink's primary key), adding the
   * rows' columns it lacks where {@code sink.schema-evolution} allows.
   *
   * @param creator whether to create the table (or add columns) at once; otherwise wait about 10 s
   *     for another subtask to do so first (see {@link TableBootstrap})
   */
  static TableRows open(
      LanceSinkConfig config, RowType rowType, WriterInitContext context, boolean creator) {
    return config.primaryKey().isPresent()
        ? new UpsertRows(config, rowType, context, creator)
        : new AppendRows(config, rowType, context, creator);
  }

  /**
   * Takes one row; a row that cannot be written is rejected under {@code sink.on-invalid-record}.
   *
   * @throws InvalidRecordException naming the table, the record and the problem, unless skipped
   */
  void write(RowData row) throws InterruptedException;

  /** Hands what is buffered to the fragment file where that is safe before the checkpoint. */
  void flush() throws InterruptedException;

  /**
   * Ends the checkpoint's files.
   *
   * @return what the checkpoint wrote, if it wrote anything
   */
  Optional<LanceWriteResult> prepareCommit() throws InterruptedException;

  /**
   * A newer writer of the same table took a change of {@code key} (after the table gained columns):
   * this one writes no row of it at the checkpoint. Only for rows applied by key.
   */
  void supersede(RowKey key);

  /** Registers the table's buffer gauges under {@code group}. */
  void registerGauges(MetricGroup group);

  /** Buffer memory (Arrow and the keys' heap) held now. */
  long bufferedBytes();

  @Override
  void close();
}
