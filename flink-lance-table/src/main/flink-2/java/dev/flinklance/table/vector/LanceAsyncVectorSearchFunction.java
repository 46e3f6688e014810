package dev.flinklance.table.vector;

import dev.flinklance.concurrent.NativeWorkers;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import org.apache.flink.annotation.Internal;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.functions.AsyncVectorSearchFunction;
import org.apache.flink.table.functions.FunctionContext;
import org.apache.flink.table.functions.SpecializedFunction;
import org.apache.flink.table.functions.UserDefinedFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code VECTOR_SEARCH} over a Lance table with several queries in flight per task ({@code CONFIG
 * => MAP['async', 'true']}): each runs on one of the task's search threads against the task's one
 * open table. Public: Flink calls it from generated code. Flink specializes it to the query's
 * element type.
 */
@Internal
public class LanceAsyncVectorSearchFunction extends AsyncVectorSearchFunction
    implements SpecializedFunction {
  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(LanceAsyncVectorSearchFunction.class);

  private final VectorSearchSpec spec;
  private final int threads;
  private final QueryVector queries;
  private transient VectorSearcher searcher;
  private transient ExecutorService executor;

  /**
   * @param threads the queries Flink keeps in flight per task: the task searches with as many
   *     threads, at most one per processor
   */
  public LanceAsyncVectorSearchFunction(VectorSearchSpec spec, int threads) {
    this(spec, threads, QueryVector.floats());
  }

  private LanceAsyncVectorSearchFunction(VectorSearchSpec spec, int threads, QueryVector queries) {
    this.spec = spec;
    this.threads = threads;
    this.queries = queries;
  }

  @Override
  public UserDefinedFunction specialize(SpecializedContext context) {
    return new LanceAsyncVectorSearchFunction(
        spec, threads, QueryVector.of(context.getCallContext()));
  }

  @Override
  public void open(FunctionContext context) throws Exception {
    super.open(context);
    searcher = new VectorSearcher(spec);
    searcher.open();
    executor =
        NativeWorkers.pool(
            "lance-vector-search-" + context.getTaskInfo().getIndexOfThisSubtask() + "-",
            Math.min(threads, Runtime.getRuntime().availableProcessors()));
  }

  @Override
  public CompletableFuture<Collection<RowData>> asyncVectorSearch(int topK, RowData queryData) {
    if (queryData.isNullAt(0)) {
      return CompletableFuture.completedFuture(List.of());
    }
    float[] key;
    try {
      // read now: the record's memory may be reused once this returns
      key = queries.toFloats(queryData.getArray(0), spec.column(), spec.table().uri());
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
    return CompletableFuture.supplyAsync(() -> searcher.search(key, topK), executor);
  }

  @Override
  public void close() throws Exception {
    if (executor != null && !NativeWorkers.stop(executor, NativeWorkers.STOP_WAIT)) {
      LOG.warn("A search on {} is still running; leaving its dataset open", spec.table());
    } else if (searcher != null) {
      searcher.close();
    }
    super.close();
  }
}
