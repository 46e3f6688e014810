package dev.flinklance.sink.committer;

import dev.flinklance.access.TableRef;
import dev.flinklance.access.VersionMark;
import dev.flinklance.errors.LanceDatasetException;
import dev.flinklance.errors.LanceErrors;
import dev.flinklance.errors.LanceErrors.Kind;
import dev.flinklance.errors.TableReplacedException;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import org.apache.arrow.memory.BufferAllocator;
import org.lance.Dataset;

/**
 * The committer's view of its table: the newest version it knows, and the check that the table at
 * the URI still is that table. Committing on a cached view of a table that was deleted and
 * recreated would write a version referencing the old table's files, and the new table would become
 * unreadable. Every move to a newer version keeps that chain: it is either a version this committer
 * committed or one checked against the version known before ({@link VersionMark#sameTable}).
 */
final class TableIdentity implements AutoCloseable {
  private final TableRef table;
  private final BufferAllocator allocator;
  private final Set<VersionMark> verifiedRunStarts = new HashSet<>();
  private Dataset dataset;
  private VersionMark known;

  TableIdentity(TableRef table, BufferAllocator allocator) {
    this.table = table;
    this.allocator = allocator;
    this.dataset = openExisting(table, allocator);
    this.known = VersionMark.of(dataset);
  }

  /**
   * A committable proves that its writers saw the table, so a table not found here is not a
   * permanent error: an object store can list a version directory without the manifest a concurrent
   * writer is putting. A restart retries; a table that really was deleted is recreated by the
   * writers and then refused by {@link #verify}.
   */
  private static Dataset openExisting(TableRef table, BufferAllocator allocator) {
    return table.openIfExists(allocator).orElseThrow(() -> notFound(table));
  }

  private static LanceDatasetException notFound(TableRef table) {
    return new LanceDatasetException(
        table.uri(),
        "the table the writers wrote into is not found; retrying after a restart",
        null);
  }

  /** The table at the newest version this committer knows. */
  Dataset dataset() {
    return dataset;
  }

  /**
   * @throws dev.flinklance.errors.TableReplacedException if the table is not the one the known
   *     version, or {@code runStart}, was taken from
   */
  void verify(VersionMark runStart) {
    known.verify(dataset);
    if (!verifiedRunStarts.contains(runStart)) {
      runStart.verify(dataset);
      verifiedRunStarts.add(runStart);
    }
  }

  /**
   * A failure of an attempt that may come from the table being dropped or replaced under it (a
   * lookup or commit meeting files that are gone): the replacement if so, with the failure
   * suppressed in it, otherwise the failure itself.
   */
  RuntimeException explain(RuntimeException failure) {
    if (failure instanceof TableReplacedException || LanceErrors.kindOf(failure) == Kind.CONFLICT) {
      return failure;
    }
    try {
      known.verify(dataset);
    } catch (TableReplacedException replaced) {
      replaced.addSuppressed(failure);
      return replaced;
    }
    return failure;
  }

  /** Moves to a version this committer just committed. */
  void advanceTo(Dataset committed) {
    dataset.close();
    dataset = committed;
    known = VersionMark.of(committed);
  }

  /**
   * Reopens the latest version, after an attempt whose outcome is unknown or after a change of the
   * table's indexes, if the table at the URI still is the one this committer knows.
   *
   * @throws TableReplacedException if it was dropped or replaced
   */
  void refresh() {
    Optional<Dataset> latest = table.openIfExists(allocator);
    if (latest.isEmpty()) {
      known.verify(dataset); // gone, once rechecked
      throw notFound(table);
    }
    Dataset same = known.sameTable(latest.get());
    dataset.close();
    dataset = same;
    known = VersionMark.of(same);
  }

  @Override
  public void close() {
    dataset.close();
  }
}
