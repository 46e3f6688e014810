package dev.flinklance.source;

import dev.flinklance.access.TableRef;
import java.io.Serializable;
import java.util.ArrayList;
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
 * @param streaming how a streaming read follows the table, or null for a bounded read of one
 *     version
 */
@Internal
public record LanceScan(
    TableRef dataset,
    Long version,
    String tag,
    RowType rowType,
    String filter,
    Long limit,
    int batchSize,
    StreamingRead streaming)
    implements Serializable {

  public List<String> columns() {
    return rowType.getFieldNames();
  }

  public boolean changelog() {
    return streaming != null && streaming.changelog();
  }

  /** The columns that pair updates in a changelog read (empty: Lance's row ids, or none). */
  public List<String> changelogKey() {
    return changelog() ? streaming.changelogKey() : List.of();
  }

  /** The columns a change to which is a change of the produced rows: read and pairing ones. */
  public List<String> watchedColumns() {
    List<String> watched = new ArrayList<>(columns());
    changelogKey().stream().filter(column -> !watched.contains(column)).forEach(watched::add);
    return watched;
  }

  /**
   * Lance scan options for one split, resuming after {@code rowsToSkip} rows of its (filtered)
   * output: Lance applies offset and limit after the filter, and scans a fragment in order.
   */
  public ScanOptions scanOptions(long rowsToSkip) {
    return scanOptions(rowsToSkip, columns(), false, false, null);
  }

  /**
   * @param columns the columns to read (the produced ones, maybe with the pairing key)
   * @param rowId also read {@code _rowid}
   * @param rowAddress also read {@code _rowaddr}
   * @param rows a Lance filter that selects rows (by row id), and-ed with the pushed one, or null;
   *     the scan then reads {@code _rowid} too
   */
  public ScanOptions scanOptions(
      long rowsToSkip, List<String> columns, boolean rowId, boolean rowAddress, String rows) {
    ScanOptions.Builder options = new ScanOptions.Builder().batchSize(batchSize);
    // Lance refuses an empty projection; the row address is the cheapest column to count rows.
    // Lance plans rows named by id and-ed with another filter as a take by row id, whose input
    // must hold them ("TakeExec requires the input plan to have a column named '_rowaddr' or
    // '_rowid'"): the scan reads them whenever it names rows.
    options
        .columns(columns)
        .withRowAddress(rowAddress || columns.isEmpty())
        .withRowId(rowId || rows != null);
    if (filter != null && rows != null) {
      options.filter("(" + filter + ") AND " + rows);
    } else {
      Optional.ofNullable(filter != null ? filter : rows).ifPresent(options::filter);
    }
    if (rowsToSkip > 0) {
      options.offset(rowsToSkip);
    }
    if (limit != null) {
      options.limit(Math.max(0, limit - rowsToSkip));
    }
    return options.build();
  }
}
