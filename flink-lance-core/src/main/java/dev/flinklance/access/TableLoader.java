package dev.flinklance.access;

import java.util.Optional;
import org.apache.flink.annotation.Internal;
import org.lance.Dataset;

/**
 * An operator's table ({@link OpenTable}): opened on first use, moved between versions of the same
 * table instead of being reopened, dropped after a failure and opened afresh the next time. Used
 * from one thread at a time (the operator's background thread).
 */
@Internal
public final class TableLoader implements AutoCloseable {
  private final TableRef table;
  private OpenTable open;

  public TableLoader(TableRef table) {
    this.table = table;
  }

  public TableRef table() {
    return table;
  }

  /**
   * The newest version, or empty while there is no table.
   *
   * @throws dev.flinklance.errors.TableReplacedException if the table open here was replaced
   */
  public Optional<Dataset> latestIfExists() {
    if (open == null) {
      open = OpenTable.latestIfExists(table).orElse(null);
    } else {
      open.moveToLatest();
    }
    return Optional.ofNullable(open).map(OpenTable::dataset);
  }

  /**
   * The newest version.
   *
   * @throws dev.flinklance.errors.PermanentDatasetException if there is no table
   */
  public Dataset latest() {
    if (open == null) {
      open = OpenTable.latest(table);
    } else {
      open.moveToLatest();
    }
    return open.dataset();
  }

  /** The table at {@code version}. */
  public Dataset at(long version) {
    if (open == null) {
      open = OpenTable.at(table, version, null);
    } else {
      open.moveTo(version);
    }
    return open.dataset();
  }

  /** Forgets the open table (after a failure: it is opened afresh next time). */
  public void reset() {
    if (open != null) {
      open.close();
      open = null;
    }
  }

  @Override
  public void close() {
    reset();
  }
}
