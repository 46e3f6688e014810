package dev.flinklance.table.lookup;

import dev.flinklance.key.RowKey;
import java.util.Collection;
import java.util.List;
import org.apache.flink.annotation.Internal;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.functions.FunctionContext;
import org.apache.flink.table.functions.LookupFunction;

/**
 * A lookup join's reads of a Lance table, one key at a time on the task's thread: one Lance query
 * per key (and per cache miss, with a PARTIAL cache). Public: Flink calls it from generated code.
 */
@Internal
public class LanceLookupFunction extends LookupFunction {
  private static final long serialVersionUID = 1L;

  private final LookupSpec spec;
  private transient TableLookup lookup;

  public LanceLookupFunction(LookupSpec spec) {
    this.spec = spec;
  }

  @Override
  public void open(FunctionContext context) throws Exception {
    super.open(context);
    lookup = new TableLookup(spec, context.getMetricGroup());
    lookup.open();
  }

  @Override
  public Collection<RowData> lookup(RowData keyRow) {
    RowKey key = lookup.keyOf(keyRow);
    if (key == null) {
      return List.of();
    }
    return lookup.lookup(List.of(key)).getOrDefault(key, List.of());
  }

  @Override
  public void close() throws Exception {
    if (lookup != null) {
      lookup.close();
    }
    super.close();
  }
}
