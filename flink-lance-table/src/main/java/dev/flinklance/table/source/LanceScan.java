package dev.flinklance.table.source;

import dev.flinklance.dataset.LanceDataset;
import java.io.Serializable;
import java.util.List;
import java.util.Optional;
import org.apache.flink.annotation.Internal;
import org.apache.flink.table.types.logical.RowType;
import org.lance.ipc.ScanOptions;

/**
 * What a source reads: the table, which version, the columns of the produced rows, and the work
 * pushed into Lance (filter, limit). Resolved on the client when the source is built.
 *
 * @param version the version to read, or null for the latest at job start (or {@code tag}'s)
 * @param tag a tag whose version to read, or null
 * @param rowType the produced rows; its field names are the table columns read, in order
 * @param filter a Lance SQL filter, or null
 * @param limit at most this many rows per split, or null
 */
@Internal
public record LanceScan(
    LanceDataset dataset,
    Long version,
    String tag,
    RowType rowType,
    String filter,
    Long limit,
    int batchSize)
    implements Serializable {

  public List<String> columns() {
    return rowType.getFieldNames();
  }

  /**
   * Lance scan options for one split, resuming after {@code rowsToSkip} rows of its (filtered)
   * output: Lance applies offset and limit after the filter, and scans a fragment in order.
   */
  public ScanOptions scanOptions(long rowsToSkip) {
    ScanOptions.Builder options = new ScanOptions.Builder().batchSize(batchSize);
    if (columns().isEmpty()) {
      // Lance refuses an empty projection; the row address is the cheapest column to count rows.
      options.columns(List.of()).withRowAddress(true);
    } else {
      options.columns(columns());
    }
    Optional.ofNullable(filter).ifPresent(options::filter);
    if (rowsToSkip > 0) {
      options.offset(rowsToSkip);
    }
    if (limit != null) {
      options.limit(Math.max(0, limit - rowsToSkip));
    }
    return options.build();
  }
}
