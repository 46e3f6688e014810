package dev.flinklance.sink.dynamic;

import dev.flinklance.concurrent.NativeWorkers;
import dev.flinklance.metrics.LanceMetrics;
import dev.flinklance.sink.InvalidRecordPolicy;
import dev.flinklance.sink.writer.InvalidRecordException;
import dev.flinklance.sink.writer.LanceWriteResult;
import dev.flinklance.sink.writer.RecordErrors;
import dev.flinklance.sink.writer.SkippedRecords;
import dev.flinklance.sink.writer.WriteFailure;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.sink2.CommittingSinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.util.IOUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The dynamic sink's writer: one {@link TableWriter} per table it has records of, opened at the
 * table's first record (creating the table if needed), hands on one result per table at each
 * checkpoint. Bounded: at most {@code sink.dynamic.max-open-tables} tables take appended rows at
 * once (the least recently written finishes its file first), their memory together stays within
 * {@code sink.dynamic.max-buffer-size} (the largest finishes its file first), and a table without
 * records between two checkpoints is closed at the second. It never commits.
 */
@Internal
public final class DynamicSinkWriter
    implements CommittingSinkWriter<DynamicRecord, TableWriteResult> {
  private final DynamicSinkConfig config;
  private final WriterInitContext context;
  private final WriteFailure failure;
  private final SkippedRecords skipped;
  private final String subtask;

  /** Open tables, least recently written first. */
  private final LinkedHashMap<TableName, TableWriter> open = new LinkedHashMap<>(16, 0.75f, true);

  /** What tables closed before the checkpoint wrote, for it. */
  private final Map<TableName, List<LanceWriteResult>> closed = new HashMap<>();

  private static final Logger LOG = LoggerFactory.getLogger(DynamicSinkWriter.class);

  /** Tables finishing their files at once at a checkpoint. */
  private static final int FINISH_THREADS = 8;

  /** Records between two looks at the open tables' memory (a look visits every open table). */
  private static final int MEMORY_CHECK_INTERVAL = 256;

  private long records;
  private final WorkerThreads finishers;

  public DynamicSinkWriter(DynamicSinkConfig config, WriterInitContext context) {
    this.config = config;
    this.context = context;
    this.subtask = RecordErrors.subtaskOf(context);
    this.finishers = new WorkerThreads(FINISH_THREADS, "lance-dynamic-writer (" + subtask + ") ");
    this.skipped = new SkippedRecords(context.metricGroup().getNumRecordsSendErrorsCounter());
    this.failure =
        new WriteFailure(
            "Dynamic Lance sink into '" + config.warehouse() + "'", subtask, () -> records);
    MetricGroup metrics = context.metricGroup().addGroup(LanceMetrics.GROUP);
    metrics.gauge("openTables", open::size);
    metrics.gauge("bufferedBytes", this::bufferedBytes);
  }

  @Override
  public void write(DynamicRecord record, Context context) throws InterruptedException {
    failure.guard(
        () -> {
          records++;
          try {
            writeTo(TableName.of(record), record);
          } catch (InvalidRecordException e) {
            reject(e);
          }
        });
  }

  private void writeTo(TableName name, DynamicRecord record) throws InterruptedException {
    TableWriter table = open.get(name);
    if (table == null) {
      table = new TableWriter(name, record, config, context);
      open.put(name, table);
      closeLeastRecent(name);
    }
    table.write(record);
    if (records % MEMORY_CHECK_INTERVAL == 0) {
      closeLargestWhileOverBudget();
    }
  }

  /**
   * Past {@code sink.dynamic.max-buffer-size}, appending tables finish their files and close, those
   * holding the most first.
   */
  private void closeLargestWhileOverBudget() throws InterruptedException {
    long total = bufferedBytes();
    while (total > config.maxBufferBytes()) {
      Map.Entry<TableName, TableWriter> largest = null;
      for (Map.Entry<TableName, TableWriter> table : open.entrySet()) {
        if (!table.getValue().keyed()
            && (largest == null
                || table.getValue().bufferedBytes() > largest.getValue().bufferedBytes())) {
          largest = table;
        }
      }
      if (largest == null) {
        return;
      }
      total -= largest.getValue().bufferedBytes();
      finishAndClose(largest.getKey(), largest.getValue());
      open.remove(largest.getKey());
    }
  }

  /**
   * A table that wrote nothing since the checkpoint leaves nothing for it (an empty Append fails).
   */
  private void finishAndClose(TableName name, TableWriter table) throws InterruptedException {
    List<LanceWriteResult> written = table.finishAndClose();
    if (!written.isEmpty()) {
      closed.computeIfAbsent(name, t -> new ArrayList<>()).addAll(written);
    }
  }

  /**
   * A record its table cannot take (a name, key or column type that does not fit): skipped under
   * {@code sink.on-invalid-record = skip}, else the job fails at once (it would come back after
   * every restart).
   */
  private void reject(InvalidRecordException problem) {
    String message =
        String.format(
            "Dynamic Lance sink: record #%d of %s: %s", records, subtask, problem.getMessage());
    if (config.onInvalidRecord() != InvalidRecordPolicy.SKIP) {
      throw new InvalidRecordException(message, null);
    }
    skipped.skip(message);
  }

  /**
   * Past the limit of open tables, the least recently written that appends (other than {@code
   * opened}, which is about to be written) finishes its file.
   */
  private void closeLeastRecent(TableName opened) throws InterruptedException {
    Iterator<Map.Entry<TableName, TableWriter>> tables = open.entrySet().iterator();
    while (open.size() > config.maxOpenTables() && tables.hasNext()) {
      Map.Entry<TableName, TableWriter> eldest = tables.next();
      if (!eldest.getValue().keyed() && !eldest.getKey().equals(opened)) {
        finishAndClose(eldest.getKey(), eldest.getValue());
        tables.remove();
      }
    }
  }

  @Override
  public void flush(boolean endOfInput) throws InterruptedException {
    failure.check();
    for (TableWriter table : open.values()) {
      table.flush();
    }
  }

  @Override
  public Collection<TableWriteResult> prepareCommit() throws IOException, InterruptedException {
    failure.check();
    List<TableName> names = new ArrayList<>(open.keySet());
    List<Callable<Optional<TableWriteResult>>> finishes = new ArrayList<>();
    Map<TableName, Boolean> idle = new HashMap<>();
    for (TableName name : names) {
      TableWriter table = open.get(name);
      idle.put(name, !table.written());
      finishes.add(table::prepareCommit);
    }
    List<Optional<TableWriteResult>> finished = finish(finishes);
    List<TableWriteResult> results = new ArrayList<>();
    for (int i = 0; i < names.size(); i++) {
      TableName name = names.get(i);
      finished
          .get(i)
          .ifPresent(
              result -> {
                List<LanceWriteResult> before = closed.remove(name);
                results.add(before == null ? result : merged(result, before));
              });
      if (idle.get(name)) {
        open.remove(name).close();
      }
    }
    closed.forEach(
        (name, written) ->
            results.add(new TableWriteResult(name, null, LanceWriteResults.merge(written))));
    closed.clear();
    return results;
  }

  /**
   * Tables finish their files side by side: most of a file's end is waiting for Lance to encode and
   * write it, and a writer of hundreds of tables finished them one after the other in seconds per
   * checkpoint.
   */
  private List<Optional<TableWriteResult>> finish(
      List<Callable<Optional<TableWriteResult>>> finishes)
      throws IOException, InterruptedException {
    try {
      return finishers.runAll(finishes);
    } catch (IOException | InterruptedException | RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IOException(e);
    }
  }

  private static TableWriteResult merged(TableWriteResult result, List<LanceWriteResult> before) {
    List<LanceWriteResult> all = new ArrayList<>(before);
    all.add(result.result());
    return new TableWriteResult(result.table(), result.keyType(), LanceWriteResults.merge(all));
  }

  private long bufferedBytes() {
    return open.values().stream().mapToLong(TableWriter::bufferedBytes).sum();
  }

  /**
   * Closes the tables once no finisher works on them: a checkpoint's finish cut short (a failed
   * table, or the task cancelled while it waited) may leave others running, and closing a table's
   * memory under Lance's encoder frees it twice.
   */
  @Override
  public void close() throws Exception {
    if (!finishers.close()) {
      LOG.warn(
          "Dynamic Lance sink ({}): files still being finished after {}; their tables' memory is"
              + " left to the JVM",
          subtask,
          NativeWorkers.STOP_WAIT);
      open.clear();
      return;
    }
    IOUtils.closeAll(open.values());
    open.clear();
  }
}
