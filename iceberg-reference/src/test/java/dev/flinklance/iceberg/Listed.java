package dev.flinklance.iceberg;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.RowKind;

/** A few records written out one by one, in the order they are sent. */
final class Listed implements Records {
  private static final long serialVersionUID = 1L;

  private final List<Entry> entries = new ArrayList<>();

  private record Entry(String table, boolean keyed, RowType rowType, RowKind kind, Object[] values)
      implements Serializable {}

  /** An appended row; {@code values} Java objects (a String for a STRING column). */
  Listed append(String table, RowType rowType, RowKind kind, Object... values) {
    entries.add(new Entry(table, false, rowType, kind, values));
    return this;
  }

  /** A change by the key {@code id}. */
  Listed change(String table, RowType rowType, RowKind kind, Object... values) {
    entries.add(new Entry(table, true, rowType, kind, values));
    return this;
  }

  @Override
  public long count() {
    return entries.size();
  }

  @Override
  public List<String> tables() {
    return entries.stream().map(Entry::table).distinct().toList();
  }

  @Override
  public String table(long i) {
    return entry(i).table();
  }

  @Override
  public boolean keyed(long i) {
    return entry(i).keyed();
  }

  @Override
  public RowType rowType(long i) {
    return entry(i).rowType();
  }

  @Override
  public RowData row(long i) {
    Object[] values = entry(i).values().clone();
    for (int k = 0; k < values.length; k++) {
      if (values[k] instanceof String text) {
        values[k] = StringData.fromString(text);
      }
    }
    return GenericRowData.ofKind(entry(i).kind(), values);
  }

  private Entry entry(long i) {
    return entries.get((int) i);
  }
}
