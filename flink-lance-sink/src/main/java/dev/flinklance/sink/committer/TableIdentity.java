package dev.flinklance.sink.committer;

import dev.flinklance.dataset.LanceDataset;
import dev.flinklance.dataset.LanceDatasetException;
import dev.flinklance.dataset.VersionMark;
import java.util.HashSet;
import java.util.Set;
import org.apache.arrow.memory.BufferAllocator;
import org.lance.Dataset;

/**
 * The committer's view of its table: the newest version it knows, and the check that the table at
 * the URI still is that table. Committing on a cached view of a table that was deleted and
 * recreated would write a version referencing the old table's files, and the new table would become
 * unreadable.
 */
final class TableIdentity implements AutoCloseable {
  private final LanceDataset table;
  private final BufferAllocator allocator;
  private final Set<VersionMark> verifiedRunStarts = new HashSet<>();
  private Dataset dataset;

  TableIdentity(LanceDataset table, BufferAllocator allocator) {
    this.table = table;
    this.allocator = allocator;
    this.dataset = openExisting(table, allocator);
  }

  /**
   * A committable proves that its writers saw the table, so a table not found here is not a
   * permanent error: an object store can list a version directory without the manifest a concurrent
   * writer is putting. A restart retries; a table that really was deleted is recreated by the
   * writers and then refused by {@link #verify}.
   */
  private static Dataset openExisting(LanceDataset table, BufferAllocator allocator) {
    return table
        .openIfExists(allocator)
        .orElseThrow(
            () ->
                new LanceDatasetException(
                    table.uri(),
                    "the table the writers wrote into is not found; retrying after a restart",
                    null));
  }

  /** The table at the newest version this committer knows. */
  Dataset dataset() {
    return dataset;
  }

  /**
   * @throws dev.flinklance.dataset.TableReplacedException if the table is not the one the known
   *     version, or {@code runStart}, was taken from
   */
  void verify(VersionMark runStart) {
    VersionMark.of(dataset).verify(dataset);
    if (!verifiedRunStarts.contains(runStart)) {
      runStart.verify(dataset);
      verifiedRunStarts.add(runStart);
    }
  }

  /** Moves to a version this committer just committed. */
  void advanceTo(Dataset committed) {
    dataset.close();
    dataset = committed;
  }

  /** Reopens the latest version, after an attempt whose outcome is unknown. */
  void refresh() {
    Dataset latest = openExisting(table, allocator);
    dataset.close();
    dataset = latest;
  }

  @Override
  public void close() {
    dataset.close();
  }
}
