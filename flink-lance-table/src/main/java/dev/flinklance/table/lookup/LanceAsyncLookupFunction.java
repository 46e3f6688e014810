package dev.flinklance.table.lookup;

import dev.flinklance.concurrent.NativeWorkers;
import dev.flinklance.key.RowKey;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import org.apache.flink.annotation.Internal;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.functions.AsyncLookupFunction;
import org.apache.flink.table.functions.FunctionContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A lookup join's reads of a Lance table with many keys in flight per task ({@code lookup.async}):
 * the keys that wait while a query runs go into the next one ({@link LookupBatcher}), up to {@value
 * TableLookup#KEYS_PER_QUERY} per query, on one thread per processor against the task's one open
 * table version. Public: Flink calls it from generated code.
 */
@Internal
public class LanceAsyncLookupFunction extends AsyncLookupFunction {
  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(LanceAsyncLookupFunction.class);

  private final LookupSpec spec;
  private final ResidualKeys residualKeys;
  private transient TableLookup lookup;
  private transient ExecutorService workers;
  private transient LookupBatcher batcher;

  public LanceAsyncLookupFunction(LookupSpec spec) {
    this.spec = spec;
    this.residualKeys = spec.residualKeys();
  }

  @Override
  public void open(FunctionContext context) throws Exception {
    super.open(context);
    lookup = new TableLookup(spec, context.getMetricGroup());
    lookup.open();
    int threads = Runtime.getRuntime().availableProcessors();
    // FunctionContext has no task info on Flink 1.20; its metric group names the subtask on all
    String subtask = context.getMetricGroup().getAllVariables().getOrDefault("<subtask_index>", "");
    workers = NativeWorkers.pool("lance-lookup-" + subtask + "-", threads);
    batcher = new LookupBatcher(lookup::lookup, workers, threads, TableLookup.KEYS_PER_QUERY);
  }

  @Override
  public CompletableFuture<Collection<RowData>> asyncLookup(RowData keyRow) {
    RowKey key;
    Optional<Object[]> residual;
    try {
      // read now: Flink may reuse the key row once this returns
      key = lookup.keyOf(keyRow);
      residual = residualKeys.valuesOf(keyRow);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
    if (key == null || residual.isEmpty()) {
      return CompletableFuture.completedFuture(List.of());
    }
    return batcher
        .submit(key)
        .thenApply(rows -> residualKeys.matching(List.copyOf(rows), residual.get()));
  }

  @Override
  public void close() throws Exception {
    if (workers != null && !NativeWorkers.stop(workers, NativeWorkers.STOP_WAIT)) {
      LOG.warn("A lookup in {} is still running; leaving its dataset open", spec.table().uri());
    } else if (lookup != null) {
      lookup.close();
    }
    super.close();
  }
}
