package dev.flinklance.table.vector;

import dev.flinklance.access.TableRef;
import dev.flinklance.index.VectorColumn;
import dev.flinklance.index.VectorMetric;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.annotation.Internal;
import org.apache.flink.table.types.logical.RowType;

/**
 * Everything a search task needs, fixed when the query is planned.
 *
 * @param version the version to search (pinned), or null
 * @param tag the tag whose version to search (pinned), or null; both null: the latest, refreshed
 * @param producedType the table columns each result row carries, before the score
 * @param filter a Lance SQL filter on the table's rows, or null
 * @param config the search settings, with the metric resolved
 */
@Internal
public record VectorSearchSpec(
    TableRef table,
    Long version,
    String tag,
    VectorColumn column,
    RowType producedType,
    String filter,
    VectorSearchConfig config)
    implements Serializable {

  public VectorMetric metric() {
    return config.metric();
  }

  /** The columns a search reads: the produced ones, then Lance's distance. */
  List<String> scanColumns() {
    List<String> columns = new ArrayList<>(producedType.getFieldNames());
    columns.add(VectorSearcher.DISTANCE);
    return columns;
  }
}
