package dev.flinklance.table.lookup;

import dev.flinklance.key.RowKey;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
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
  private final ResidualKeys residualKeys;
  private transient TableLookup lookup;

  public LanceLookupFunction(LookupSpec spec) {
    this.spec = spec;
    this.residualKeys = spec.residualKeys();
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
    Optional<Object[]> residual = residualKeys.valuesOf(keyRow);
    if (key == null || residual.isEmpty()) {
      return List.of();
    }
    return residualKeys.matching(
        lookup.lookup(List.of(key)).getOrDefault(key, List.of()), residual.get());
  }

  @Override
  public void close() throws Exception {
    if (lookup != null) {
      lookup.close();
    }
    super.close();
  }
}
