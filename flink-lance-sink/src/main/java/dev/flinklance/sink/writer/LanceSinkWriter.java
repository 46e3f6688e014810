package dev.flinklance.sink.writer;

import dev.flinklance.arrow.ArrowSchemaConverter;
import dev.flinklance.arrow.InvalidValueException;
import dev.flinklance.arrow.write.ArrowBatchWriter;
import dev.flinklance.dataset.LanceDatasetException;
import dev.flinklance.dataset.PermanentDatasetException;
import dev.flinklance.dataset.VersionMark;
import dev.flinklance.sink.InvalidRecordPolicy;
import dev.flinklance.sink.LanceSinkConfig;
import dev.flinklance.sink.writer.FragmentStream.FileLayout;
import dev.flinklance.sink.writer.TableBootstrap.TableLayout;
import java.util.Collection;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.sink2.CommittingSinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.metrics.Counter;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.function.SerializableFunction;
import org.lance.Dataset;
import org.lance.FragmentMetadata;
import org.lance.fragment.DataFile;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns records into Arrow batches and streams them into one Lance fragment file per checkpoint
 * (rolling to a new file at {@code sink.max-rows-per-file} or {@code sink.max-file-size}). A batch
 * is handed to the file when it reaches half of {@code sink.max-buffer-size}; the other half is for
 * what Lance holds while it encodes (the batch it took, and data it has not yet written as pages).
 * At each checkpoint it finishes the file and hands its metadata to the committer. It never
 * commits.
 */
@Internal
public final class LanceSinkWriter<T> implements CommittingSinkWriter<T, LanceWriteResult> {
  private static final Logger LOG = LoggerFactory.getLogger(LanceSinkWriter.class);
  private static final int MAX_RECORD_TEXT = 200;

  private final LanceSinkConfig config;
  private final SerializableFunction<T, RowData> toRowData;
  private final BufferAllocator allocator;
  private final BufferAllocator batchAllocator;
  private final ArrowBatchWriter batch;
  private final Schema tableSchema;
  private final FileLayout fileLayout;
  private final VersionMark opened;
  private final long batchBytes;
  private final Counter recordsSent;
  private final Counter bytesSent;
  private final SkippedRecords skippedRecords;
  private final String subtask;
  private FragmentStream stream;
  private long recordsSeen;

  public LanceSinkWriter(
      LanceSinkConfig config,
      RowType rowType,
      SerializableFunction<T, RowData> toRowData,
      WriterInitContext context) {
    this.config = config;
    this.toRowData = toRowData;
    this.subtask =
        String.format(
            "subtask %d of %d",
            context.getTaskInfo().getIndexOfThisSubtask(),
            context.getTaskInfo().getNumberOfParallelSubtasks());
    this.recordsSent = context.metricGroup().getNumRecordsSendCounter();
    this.bytesSent = context.metricGroup().getNumBytesSendCounter();
    this.skippedRecords =
        new SkippedRecords(context.metricGroup().getNumRecordsSendErrorsCounter());
    this.batchBytes = config.maxBufferBytes() / 2;
    this.allocator = new RootAllocator();
    try {
      this.batchAllocator = allocator.newChildAllocator("batch", 0, Long.MAX_VALUE);
      Schema streamSchema = ArrowSchemaConverter.toArrowSchema(rowType, config.vectorColumns());
      TableLayout layout =
          TableBootstrap.ensureTable(
              config.dataset(),
              allocator,
              streamSchema,
              config.stableRowIds(),
              ArrowSchemaConverter.storageVersionFor(streamSchema, config.dataStorageVersion()),
              context.getTaskInfo().getIndexOfThisSubtask() == 0);
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
    context.metricGroup().gauge("lanceArrowPeakBytes", allocator::getPeakMemoryAllocation);
    context.metricGroup().gauge("lanceBufferedRows", batch::rowCount);
  }

  private ArrowBatchWriter openBatch(RowType rowType, Schema tableSchema) {
    try {
      return ArrowBatchWriter.create(rowType, tableSchema, batchAllocator);
    } catch (IllegalArgumentException e) {
      throw new PermanentDatasetException(
          config.dataset().uri(), "the stream's schema does not match the table's", e);
    }
  }

  @Override
  public void write(T element, Context context) throws InterruptedException {
    recordsSeen++;
    RowData row = toRowData.apply(element);
    if (row.getRowKind() == RowKind.DELETE || row.getRowKind() == RowKind.UPDATE_BEFORE) {
      throw recordError(
          "appends rows and cannot apply", row, " with row kind " + row.getRowKind(), null);
    }
    if (batch.nextRowWouldOutgrow(batchAllocator.getAllocatedMemory(), batchBytes)) {
      sendBatch();
    }
    try {
      batch.write(row);
    } catch (InvalidValueException e) {
      InvalidRecordException error = recordError("cannot write", row, ": " + e.getMessage(), e);
      if (config.onInvalidRecord() == InvalidRecordPolicy.SKIP) {
        // The row was not counted: the next one overwrites what it left in the batch.
        skippedRecords.skip(error.getMessage());
        return;
      }
      throw error;
    }
    recordsSent.inc();
    // Variable-width data (strings, lists) grows by bytes, not rows: the backstop.
    if (batchAllocator.getAllocatedMemory() >= batchBytes) {
      sendBatch();
    }
  }

  /**
   * Names the table, the record's position in this subtask and the record (abbreviated).
   *
   * @param problem appended right after the record's position
   */
  private InvalidRecordException recordError(
      String action, RowData row, String problem, Throwable cause) {
    String text = String.valueOf(row);
    if (text.length() > MAX_RECORD_TEXT) {
      text = text.substring(0, MAX_RECORD_TEXT) + "...";
    }
    return new InvalidRecordException(
        String.format(
            "Lance sink for '%s' %s record #%d of %s%s. Record: %s",
            config.dataset(), action, recordsSeen, subtask, problem, text),
        cause);
  }

  @Override
  public void flush(boolean endOfInput) throws InterruptedException {
    sendBatch();
  }

  @Override
  public Collection<LanceWriteResult> prepareCommit() throws InterruptedException {
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
    bytesSent.inc(fileBytes(written));
    return List.of(new LanceWriteResult(written));
  }

  private void sendBatch() throws InterruptedException {
    if (batch.rowCount() == 0) {
      return;
    }
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
      stream.send(batch.seal());
    } catch (LanceDatasetException e) {
      throw explain(e);
    }
    batch.reset();
  }

  /**
   * A fragment write fails with a bare I/O error when the table's directory was moved or deleted
   * under it; the table's own history says what happened.
   */
  private RuntimeException explain(LanceDatasetException failure) {
    try (Dataset current = config.dataset().open(allocator)) {
      opened.verify(current);
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

  @Override
  public void close() {
    boolean released = stream == null || stream.abort();
    try {
      batch.close();
      batchAllocator.close();
    } finally {
      closeAllocator(released);
    }
  }

  /**
   * A write Lance did not let go of in time still holds Arrow buffers: closing the allocator then
   * reports a leak, which must not take the task manager down with it.
   */
  private void closeAllocator(boolean released) {
    try {
      allocator.close();
    } catch (IllegalStateException leak) {
      if (released) {
        throw leak;
      }
      LOG.warn(
          "Lance sink writer for {} closed while Lance still held a batch of an aborted fragment"
              + " write: {}",
          config.dataset(),
          leak.getMessage());
    }
  }
}
