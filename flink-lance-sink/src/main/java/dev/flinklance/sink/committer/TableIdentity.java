package dev.flinklance.sink.committer;

import dev.flinklance.dataset.LanceDataset;
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
    this.dataset = table.open(allocator);
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
    Dataset latest = table.open(allocator);
    dataset.close();
    dataset = latest;
  }

  @Override
  public void close() {
    dataset.close();
  }
}
