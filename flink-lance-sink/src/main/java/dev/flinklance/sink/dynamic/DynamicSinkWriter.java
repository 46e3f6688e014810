package dev.flinklance.sink.dynamic;

import dev.flinklance.metrics.LanceMetrics;
import dev.flinklance.sink.writer.LanceWriteResult;
import dev.flinklance.sink.writer.RecordErrors;
import dev.flinklance.sink.writer.WriteFailure;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.sink2.CommittingSinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.util.IOUtils;

/**
 * The dynamic sink's writer: one {@link TableWriter} per table it has records of, opened at the
 * table's first record (creating the table if needed), hands on one result per table at each
 * checkpoint. Bounded: at most {@code sink.dynamic.max-open-tables} tables take appended rows at
 * once (the least recently written finishes its file first), and a table without records between
 * two checkpoints is closed at the second. It never commits.
 */
@Internal
public final class DynamicSinkWriter
    implements CommittingSinkWriter<DynamicRecord, TableWriteResult> {
  private final DynamicSinkConfig config;
  private final WriterInitContext context;
  private final WriteFailure failure;

  /** Open tables, least recently written first. */
  private final LinkedHashMap<TableName, TableWriter> open = new LinkedHashMap<>(16, 0.75f, true);

  /** What tables closed before the checkpoint wrote, for it. */
  private final Map<TableName, List<LanceWriteResult>> closed = new HashMap<>();

  private long records;

  public DynamicSinkWriter(DynamicSinkConfig config, WriterInitContext context) {
    this.config = config;
    this.context = context;
    this.failure =
        new WriteFailure(
            "Dynamic Lance sink into '" + config.warehouse() + "'",
            RecordErrors.subtaskOf(context),
            () -> records);
    MetricGroup metrics = context.metricGroup().addGroup(LanceMetrics.GROUP);
    metrics.gauge("openTables", open::size);
    metrics.gauge("bufferedBytes", this::bufferedBytes);
  }

  @Override
  public void write(DynamicRecord record, Context context) throws InterruptedException {
    failure.guard(
        () -> {
          records++;
          TableName name = TableName.of(record);
          TableWriter table = open.get(name);
          if (table == null) {
            table = new TableWriter(name, record, config, this.context);
            open.put(name, table);
            closeLeastRecent(name);
          }
          table.write(record);
        });
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
        closed
            .computeIfAbsent(eldest.getKey(), t -> new ArrayList<>())
            .addAll(eldest.getValue().finishAndClose());
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
  public Collection<TableWriteResult> prepareCommit() throws InterruptedException {
    failure.check();
    List<TableWriteResult> results = new ArrayList<>();
    Iterator<Map.Entry<TableName, TableWriter>> tables = open.entrySet().iterator();
    while (tables.hasNext()) {
      Map.Entry<TableName, TableWriter> entry = tables.next();
      TableWriter table = entry.getValue();
      boolean idle = !table.written();
      table
          .prepareCommit()
          .ifPresent(
              result -> {
                List<LanceWriteResult> before = closed.remove(entry.getKey());
                results.add(before == null ? result : merged(result, before));
              });
      if (idle) {
        table.close();
        tables.remove();
      }
    }
    closed.forEach(
        (name, written) ->
            results.add(new TableWriteResult(name, null, LanceWriteResults.merge(written))));
    closed.clear();
    return results;
  }

  private static TableWriteResult merged(TableWriteResult result, List<LanceWriteResult> before) {
    List<LanceWriteResult> all = new ArrayList<>(before);
    all.add(result.result());
    return new TableWriteResult(result.table(), result.keyType(), LanceWriteResults.merge(all));
  }

  private long bufferedBytes() {
    return open.values().stream().mapToLong(TableWriter::bufferedBytes).sum();
  }

  @Override
  public void close() throws Exception {
    IOUtils.closeAll(open.values());
    open.clear();
  }
}
