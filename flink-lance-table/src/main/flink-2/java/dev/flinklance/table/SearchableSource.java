package dev.flinklance.table;

import dev.flinklance.table.vector.VectorSearchPlanner;
import org.apache.flink.table.connector.source.VectorSearchTableSource;

/**
 * A table source {@code VECTOR_SEARCH} (FLIP-540, Flink 2.2+) searches, through {@link
 * VectorSearchPlanner}.
 */
interface SearchableSource extends VectorSearchTableSource {
  SearchTarget searchTarget();

  @Override
  default VectorSearchRuntimeProvider getSearchRuntimeProvider(VectorSearchContext context) {
    SearchTarget target = searchTarget();
    return VectorSearchPlanner.provider(
        target.source(),
        target.schema(),
        target.tableOptions(),
        target.producedType(),
        target.filter(),
        context);
  }
}
