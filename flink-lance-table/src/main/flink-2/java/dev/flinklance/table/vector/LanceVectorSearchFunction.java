package dev.flinklance.table.vector;

import java.util.Collection;
import java.util.List;
import org.apache.flink.annotation.Internal;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.functions.FunctionContext;
import org.apache.flink.table.functions.SpecializedFunction;
import org.apache.flink.table.functions.UserDefinedFunction;
import org.apache.flink.table.functions.VectorSearchFunction;

/**
 * {@code VECTOR_SEARCH} over a Lance table, one query at a time on the task's thread. Public: Flink
 * calls it from generated code. Flink specializes it to the query's element type.
 */
@Internal
public class LanceVectorSearchFunction extends VectorSearchFunction implements SpecializedFunction {
  private static final long serialVersionUID = 1L;

  private final VectorSearchSpec spec;
  private final QueryVector queries;
  private transient VectorSearcher searcher;

  public LanceVectorSearchFunction(VectorSearchSpec spec) {
    this(spec, QueryVector.floats());
  }

  private LanceVectorSearchFunction(VectorSearchSpec spec, QueryVector queries) {
    this.spec = spec;
    this.queries = queries;
  }

  @Override
  public UserDefinedFunction specialize(SpecializedContext context) {
    return new LanceVectorSearchFunction(spec, QueryVector.of(context.getCallContext()));
  }

  @Override
  public void open(FunctionContext context) throws Exception {
    super.open(context);
    searcher = new VectorSearcher(spec);
    searcher.open();
  }

  @Override
  public Collection<RowData> vectorSearch(int topK, RowData queryData) {
    if (queryData.isNullAt(0)) {
      return List.of(); // Flink skips NULL queries before calling; never search for one
    }
    float[] key = queries.toFloats(queryData.getArray(0), spec.column(), spec.table().uri());
    return searcher.search(key, topK);
  }

  @Override
  public void close() throws Exception {
    if (searcher != null) {
      searcher.close();
    }
    super.close();
  }
}
