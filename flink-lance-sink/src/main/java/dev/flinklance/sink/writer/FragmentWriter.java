package dev.flinklance.sink.writer;

import dev.flinklance.access.OpenTable;
import dev.flinklance.access.VersionMark;
import dev.flinklance.arrow.Allocators;
import dev.flinklance.arrow.write.ArrowBatchWriter;
import dev.flinklance.errors.LanceDatasetException;
import dev.flinklance.errors.PermanentDatasetException;
import dev.flinklance.key.PrimaryKey;
import dev.flinklance.sink.LanceSinkConfig;
import dev.flinklance.sink.writer.FragmentStream.FileLayout;
import dev.flinklance.sink.writer.TableBootstrap.TargetTable;
import java.util.List;
import java.util.Optional;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.metrics.Counter;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.lance.FragmentMetadata;
import org.lance.fragment.DataFile;

/**
 * Streams rows into one Lance fragment file per checkpoint (rolling to a new file at {@code
 * sink.max-rows-per-file} or {@code sink.max-file-size}), for either writer. A batch is handed to
 * the file when it reaches half of {@code sink.max-buffer-size}; the other half is for what Lance
 * holds while it encodes (the batch it took, and data it has not yet written as pages). The batch
 * lives in a child allocator, so the limit counts only the batch being filled.
 */
final class FragmentWriter implements AutoCloseable {

  private final LanceSinkConfig config;
  private final BufferAllocator allocator;
  private final BufferAllocator batchAllocator;
  private final ArrowBatchWriter batch;
  private final Schema tableSchema;
  private final FileLayout fileLayout;
  private final VersionMark opened;
  private final long batchBytes;
  private final Counter bytesSent;
  private final String subtask;
  private FragmentStream stream;

  /**
   * Opens the table, or creates it with the rows' schema (with the primary key declared, if the
   * sink has one), and checks that it takes the rows.
   *
   * @param rowType the rows as the writer hands them over
   * @param creator whether to create a missing table at once, or wait for another subtask to
   */
  FragmentWriter(
      LanceSinkConfig config, RowType rowType, WriterInitContext context, boolean creator) {
    this.config = config;
    this.subtask = RecordErrors.subtaskOf(context);
    this.bytesSent = context.metricGroup().getNumBytesSendCounter();
    this.batchBytes = config.maxBufferBytes() / 2;
    this.allocator = Allocators.forBatches(config.maxBufferBytes());
    try {
      this.batchAllocator = allocator.newChildAllocator("batch", 0, Long.MAX_VALUE);
      Optional<PrimaryKey> key = config.primaryKey();
      Schema streamSchema = config.layout().schemaFor(rowType);
      Schema creationSchema = key.map(k -> k.declareIn(streamSchema)).orElse(streamSchema);
      TargetTable layout =
          TableBootstrap.ensureTable(
              config.dataset(),
              creationSchema,
              config.layout().stableRowIds(),
              config.layout().storageVersionFor(streamSchema),
              creator,
              config.schemaEvolution());
      checkKey(key, layout);
      this.tableSchema = layout.schema();
      this.opened = layout.opened();
      this.batch = openBatch(rowType, layout.schema());
      this.fileLayout =
          new FileLayout(
              layout.dataStorageVersion(), config.maxRowsPerFile(), config.maxFileBytes());
    } catch (RuntimeException e) {
      allocator.close();
      throw e;
    }
  }

  private void checkKey(Optional<PrimaryKey> key, TargetTable layout) {
    String uri = config.dataset().uri();
    try {
      if (key.isPresent()) {
        key.get().checkTable(layout.lanceSchema(), uri);
      } else {
        PrimaryKey.requireNoKey(layout.lanceSchema(), uri);
      }
    } catch (IllegalArgumentException e) {
      throw new PermanentDatasetException(uri, e.getMessage(), e);
    }
  }

  private ArrowBatchWriter openBatch(RowType rowType, Schema tableSchema) {
    try {
      return ArrowBatchWriter.create(rowType, tableSchema, batchAllocator);
    } catch (IllegalArgumentException e) {
      throw new PermanentDatasetException(
          config.dataset().uri(), "the stream's schema does not match the table's", e);
    }
  }

  /** The table's schema: the layout of the batches {@link #send} takes. */
  Schema tableSchema() {
    return tableSchema;
  }

  /** The writer's Arrow memory; a buffer of rows in the table's layout allocates under it. */
  BufferAllocator allocator() {
    return allocator;
  }

  /** Rows in the batch being filled. */
  int bufferedRows() {
    return batch.rowCount();
  }

  /** Arrow memory held now: the batch being filled and what the file has not yet taken. */
  long bufferedBytes() {
    return allocator.getAllocatedMemory();
  }

  long peakBytes() {
    return allocator.getPeakMemoryAllocation();
  }

  /**
   * Appends one row. A row that fails is not counted; the next one overwrites what it left.
   *
   * @throws dev.flinklance.arrow.InvalidValueException if a value cannot be stored
   */
  void write(RowData row) throws InterruptedException {
    if (batch.nextRowWouldOutgrow(batchAllocator.getAllocatedMemory(), batchBytes)) {
      sendBatch();
    }
    batch.write(row);
    // Variable-width data (strings, lists) grows by bytes, not rows: the backstop.
    if (batchAllocator.getAllocatedMemory() >= batchBytes) {
      sendBatch();
    }
  }

  /**
   * Hands a batch of rows already in the table's layout to the file, after the rows written before
   * it; {@code rows} is left empty.
   */
  void send(VectorSchemaRoot rows) throws InterruptedException {
    sendBatch();
    if (rows.getRowCount() > 0) {
      sendToStream(rows);
    }
  }

  /** Hands the batch being filled to the file. */
  void flush() throws InterruptedException {
    sendBatch();
  }

  /**
   * Ends the checkpoint's file.
   *
   * @return the fragments written since the last call (none if no row was)
   */
  List<FragmentMetadata> finish() throws InterruptedException {
    sendBatch();
    if (stream == null) {
      return List.of();
    }
    List<FragmentMetadata> written;
    try {
      written = stream.finish();
    } catch (LanceDatasetException e) {
      throw explain(e);
    }
    stream = null;
    // The dynamic sink finishes its tables' files on several threads, all counting here.
    synchronized (bytesSent) {
      bytesSent.inc(fileBytes(written));
    }
    return written;
  }

  private void sendBatch() throws InterruptedException {
    if (batch.rowCount() == 0) {
      return;
    }
    long sentBytes = batchAllocator.getAllocatedMemory();
    sendToStream(batch.seal());
    // Lance may still hold earlier batches: a next batch as large as this one only beside those
    batch.reset(batchBytes, allocator.getAllocatedMemory() + sentBytes <= config.maxBufferBytes());
  }

  private void sendToStream(VectorSchemaRoot rows) throws InterruptedException {
    if (stream == null) {
      stream =
          new FragmentStream(
              config.dataset(),
              allocator,
              tableSchema,
              fileLayout,
              "Lance fragment writer (" + subtask + ")");
    }
    try {
      stream.send(rows);
    } catch (LanceDatasetException e) {
      throw explain(e);
    }
  }

  /**
   * A fragment write fails with a bare I/O error when the table's directory was moved or deleted
   * under it; the table's own history says what happened.
   */
  private RuntimeException explain(LanceDatasetException failure) {
    try (OpenTable current = OpenTable.latest(config.dataset())) {
      opened.verify(current.dataset());
    } catch (LanceDatasetException replacedOrGone) {
      replacedOrGone.addSuppressed(failure);
      return replacedOrGone;
    }
    return failure;
  }

  private static long fileBytes(List<FragmentMetadata> fragments) {
    long bytes = 0;
    for (FragmentMetadata fragment : fragments) {
      for (DataFile file : fragment.getFiles()) {
        Long size = file.getFileSizeBytes();
        bytes += size == null ? 0 : size;
      }
    }
    return bytes;
  }

  /**
   * Aborts a write in progress. Whatever else was allocated under {@link #allocator()} must be
   * closed before.
   */
  @Override
  public void close() {
    if (stream != null) {
      stream.abort();
    }
    try {
      batch.close();
      batchAllocator.close();
    } finally {
      Allocators.closeAtEnd(allocator, "Lance sink writer of " + config.dataset());
    }
  }
}
