package dev.flinklance.sink.dynamic;

import dev.flinklance.access.OpenTable;
import dev.flinklance.access.TableRef;
import dev.flinklance.key.PrimaryKey;
import dev.flinklance.key.RowKey;
import dev.flinklance.sink.LanceSinkConfig;
import dev.flinklance.sink.writer.InvalidRecordException;
import dev.flinklance.sink.writer.LanceWriteResult;
import dev.flinklance.sink.writer.TableRows;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;

/**
 * One writer subtask's rows of one table of the dynamic sink. Rows are written as the table's
 * current row type (the widest its records had so far): a record with fewer columns gets NULL in
 * the others, one with columns the table lacks first widens the table ({@link RowTypes#union}) and
 * opens a new {@link TableRows} for the wider type.
 *
 * <p>Appended rows written before a widening are finished into their own fragment file. Changes by
 * key cannot be: a later change of the same key in the checkpoint must replace them, so the older
 * rows stay buffered until the checkpoint, and each newer change takes its key out of them ({@link
 * TableRows#supersede}).
 */
final class TableWriter implements AutoCloseable {
  private final TableName name;
  private final List<String> primaryKey;
  private final Map<String, Integer> vectorColumns;
  private final DynamicSinkConfig config;
  private final WriterInitContext context;
  private final List<Generation> generations = new ArrayList<>();
  private final List<LanceWriteResult> finished = new ArrayList<>();
  private final Map<RowType, RowAdapter> adapters = new HashMap<>();
  private String uri;
  private RowType keyType;
  private boolean written;

  /** The rows of one row type of the table. */
  private record Generation(RowType type, PrimaryKey key, TableRows rows) {}

  TableWriter(
      TableName name, DynamicRecord first, DynamicSinkConfig config, WriterInitContext context) {
    this.name = name;
    this.primaryKey = first.primaryKey();
    this.vectorColumns = first.vectorColumns();
    this.config = config;
    this.context = context;
    open(startingType(first.rowType()));
  }

  /**
   * The first record's type, widened to the table's column types where the table exists: its first
   * records may be narrower than what the table holds.
   */
  private RowType startingType(RowType record) {
    TableRef table;
    try {
      table = config.warehouse().table(name.database(), name.table());
    } catch (IllegalArgumentException badName) {
      return record; // open() reports it
    }
    Optional<OpenTable> existing = OpenTable.latestIfExists(table);
    if (existing.isEmpty()) {
      return record;
    }
    try (OpenTable open = existing.get()) {
      return RowTypes.towardTable(record, open.dataset().getSchema());
    }
  }

  private void open(RowType rowType) {
    LanceSinkConfig table;
    try {
      table = config.forTable(name, rowType, primaryKey, vectorColumns);
    } catch (IllegalArgumentException e) {
      throw new InvalidRecordException(e.getMessage(), null);
    }
    uri = table.dataset().uri();
    PrimaryKey key = table.primaryKey().orElse(null);
    if (key != null && keyType == null) {
      keyType = RowTypes.keyType(rowType, primaryKey);
    }
    adapters.clear();
    // Every writer may create the table: records of a table reach writers in no fixed order.
    generations.add(new Generation(rowType, key, TableRows.open(table, rowType, context, true)));
  }

  /**
   * @throws InvalidRecordException naming the table and column, for a record that disagrees with
   *     the table's key or has a column of another type
   */
  void write(DynamicRecord record) throws InterruptedException {
    if (!record.primaryKey().equals(primaryKey)) {
      throw new InvalidRecordException(
          String.format(
              "Records of Lance table '%s' disagree on its primary key: %s, then %s",
              uri, primaryKey, record.primaryKey()),
          null);
    }
    Generation current = generations.get(generations.size() - 1);
    RowData row = record.row();
    if (!current.type().equals(record.rowType())) {
      if (!RowTypes.covers(current.type(), record.rowType())) {
        widen(unionWith(current.type(), record.rowType()));
        current = generations.get(generations.size() - 1);
      }
      RowType target = current.type();
      row =
          adapters
              .computeIfAbsent(record.rowType(), from -> new RowAdapter(from, target))
              .adapt(row);
    }
    if (current.key() != null && generations.size() > 1 && current.key().nullColumn(row) == null) {
      RowKey key = current.key().keyOf(row);
      for (int i = 0; i < generations.size() - 1; i++) {
        generations.get(i).rows().supersede(key);
      }
    }
    current.rows().write(row);
    written = true;
  }

  private RowType unionWith(RowType current, RowType record) {
    try {
      return RowTypes.union(current, record, uri);
    } catch (IllegalArgumentException e) {
      throw new InvalidRecordException(e.getMessage(), null);
    }
  }

  private void widen(RowType wider) throws InterruptedException {
    Generation current = generations.get(generations.size() - 1);
    if (current.key() == null) {
      current.rows().prepareCommit().ifPresent(finished::add);
      current.rows().close();
      generations.remove(current);
    }
    open(wider);
  }

  void flush() throws InterruptedException {
    for (Generation generation : generations) {
      generation.rows().flush();
    }
  }

  /**
   * Ends the checkpoint's files: one result for the table, whatever number of files. Keeps only the
   * newest row type open.
   */
  Optional<TableWriteResult> prepareCommit() throws InterruptedException {
    List<LanceWriteResult> results = new ArrayList<>(finished);
    finished.clear();
    for (Generation generation : generations) {
      generation.rows().prepareCommit().ifPresent(results::add);
    }
    while (generations.size() > 1) {
      generations.remove(0).rows().close();
    }
    written = false;
    if (results.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(new TableWriteResult(name, keyType, LanceWriteResults.merge(results)));
  }

  /**
   * Finishes the open file and closes, keeping what was written for the checkpoint ({@link
   * #finished}), for a writer with too many open tables. Only for appended rows: changes by key
   * wait for the checkpoint.
   */
  List<LanceWriteResult> finishAndClose() throws InterruptedException {
    for (Generation generation : generations) {
      generation.rows().prepareCommit().ifPresent(finished::add);
    }
    close();
    return List.copyOf(finished);
  }

  /** Whether the table got a record since the last checkpoint. */
  boolean written() {
    return written;
  }

  boolean keyed() {
    return !primaryKey.isEmpty();
  }

  long bufferedBytes() {
    return generations.stream().mapToLong(g -> g.rows().bufferedBytes()).sum();
  }

  @Override
  public void close() {
    RuntimeException failure = null;
    for (Generation generation : generations) {
      try {
        generation.rows().close();
      } catch (RuntimeException e) {
        failure = failure == null ? e : failure;
      }
    }
    generations.clear();
    if (failure != null) {
      throw failure;
    }
  }

  /**
   * Rows of a record type the table's {@link RowTypes#covers}, as rows of the table's: NULL where
   * they lack a column, values of a narrower type widened.
   */
  private static final class RowAdapter {
    private final int arity;
    private final RowData.FieldGetter[] getters;
    private final UnaryOperator<Object>[] converters;

    @SuppressWarnings("unchecked")
    RowAdapter(RowType from, RowType to) {
      this.arity = to.getFieldCount();
      this.getters = new RowData.FieldGetter[arity];
      this.converters = new UnaryOperator[arity];
      for (int i = 0; i < arity; i++) {
        int source = from.getFieldIndex(to.getFieldNames().get(i));
        if (source >= 0) {
          getters[i] = RowData.createFieldGetter(from.getTypeAt(source), source);
          converters[i] = RowTypes.converter(to.getTypeAt(i), from.getTypeAt(source));
        }
      }
    }

    RowData adapt(RowData row) {
      GenericRowData adapted = new GenericRowData(row.getRowKind(), arity);
      for (int i = 0; i < arity; i++) {
        if (getters[i] != null) {
          Object value = getters[i].getFieldOrNull(row);
          adapted.setField(i, value == null ? null : converters[i].apply(value));
        }
      }
      return adapted;
    }
  }
}
