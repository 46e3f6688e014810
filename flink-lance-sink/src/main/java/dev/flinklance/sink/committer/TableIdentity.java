package dev.flinklance.sink.committer;

import dev.flinklance.access.OpenTable;
import dev.flinklance.access.TableRef;
import dev.flinklance.access.VersionMark;
import dev.flinklance.errors.LanceDatasetException;
import java.util.HashSet;
import java.util.Set;
import org.lance.Dataset;

/**
 * The committer's view of its table: the newest version it knows, and the check that the table at
 * the URI still is that table, and the one each sink run started from. Committing on a cached view
 * of a table that was deleted and recreated would write a version referencing the old table's
 * files, and the new table would become unreadable. Every move to a newer version keeps that chain
 * ({@link OpenTable}): it is either a version this committer committed or one checked against the
 * version known before.
 */
final class TableIdentity implements AutoCloseable {
  private final Set<VersionMark> verifiedRunStarts = new HashSet<>();
  private final OpenTable open;

  /**
   * A committable proves that its writers saw the table, so a table not found here is not a
   * permanent error: an object store can list a version directory without the manifest a concurrent
   * writer is putting. A restart retries; a table that really was deleted is recreated by the
   * writers and then refused by {@link #verify}.
   */
  TableIdentity(TableRef table) {
    this.open =
        OpenTable.latestIfExists(table)
            .orElseThrow(
                () ->
                    new LanceDatasetException(
                        table.uri(),
                        "the table the writers wrote into is not found; retrying after a restart",
                        null));
  }

  /** The table at the newest version this committer knows. */
  Dataset dataset() {
    return open.dataset();
  }

  /**
   * @throws dev.flinklance.errors.TableReplacedException if the table is not the one the known
   *     version, or {@code runStart}, was taken from
   */
  void verify(VersionMark runStart) {
    open.verifySameTable();
    if (!verifiedRunStarts.contains(runStart)) {
      runStart.verify(open.dataset());
      verifiedRunStarts.add(runStart);
    }
  }

  /** See {@link OpenTable#explain}. */
  RuntimeException explain(RuntimeException failure) {
    return open.explain(failure);
  }

  /** Moves to a version this committer just committed. */
  void advanceTo(Dataset committed) {
    open.advanceTo(committed);
  }

  /**
   * Moves to the latest version, after an attempt whose outcome is unknown or after a change of the
   * table's indexes, if the table at the URI still is the one this committer knows.
   *
   * @throws dev.flinklance.errors.TableReplacedException if it was dropped or replaced
   */
  void refresh() {
    open.moveToLatest();
  }

  @Override
  public void close() {
    open.close();
  }
}
