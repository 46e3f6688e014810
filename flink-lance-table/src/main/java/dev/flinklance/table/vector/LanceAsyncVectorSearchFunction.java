package dev.flinklance.table.vector;

import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.annotation.Internal;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.functions.AsyncVectorSearchFunction;
import org.apache.flink.table.functions.FunctionContext;
import org.apache.flink.table.functions.SpecializedFunction;
import org.apache.flink.table.functions.UserDefinedFunction;

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
    AtomicInteger count = new AtomicInteger();
    String name = "lance-vector-search-" + context.getTaskInfo().getIndexOfThisSubtask() + "-";
    executor =
        Executors.newFixedThreadPool(
            Math.min(threads, Runtime.getRuntime().availableProcessors()),
            runnable -> {
              Thread thread = new Thread(runnable, name + count.incrementAndGet());
              thread.setDaemon(true);
              return thread;
            });
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
    if (executor != null) {
      executor.shutdownNow();
      executor.awaitTermination(1, TimeUnit.MINUTES);
    }
    if (searcher != null) {
      searcher.close();
    }
    super.close();
  }
}
