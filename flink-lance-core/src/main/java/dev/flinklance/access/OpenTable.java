package dev.flinklance.access;

import dev.flinklance.arrow.Allocators;
import dev.flinklance.errors.LanceCalls;
import dev.flinklance.errors.LanceDatasetException;
import dev.flinklance.errors.LanceErrors;
import dev.flinklance.errors.LanceErrors.Kind;
import dev.flinklance.errors.PermanentDatasetException;
import dev.flinklance.errors.TableReplacedException;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.annotation.Internal;
import org.lance.Dataset;

/**
 * One user's open table (an operator, a planner, a procedure call): the Lance dataset of one
 * version and the allocator it reads with, owned here and closed together. The connector opens
 * tables only through here (and {@link FollowedTable} on top).
 *
 * <p>Every move to another version checks that the table at the URI still is the one opened: a
 * handle moved to whatever is at the URI now and then checked against itself proves nothing, and
 * committing or reading on would mix two tables (a table dropped and created again at the URI, see
 * {@link VersionMark}). The check runs after the move, so a replacement at any moment before it is
 * caught.
 */
@Internal
public final class OpenTable implements AutoCloseable {
  private final TableRef table;
  private final BufferAllocator allocator;
  private Dataset dataset;
  private VersionMark known;

  private OpenTable(TableRef table, BufferAllocator allocator, Dataset dataset) {
    this.table = table;
    this.allocator = allocator;
    this.dataset = dataset;
    this.known = VersionMark.of(dataset);
  }

  /**
   * The latest version.
   *
   * @throws dev.flinklance.errors.PermanentDatasetException if there is no table at the URI
   */
  public static OpenTable latest(TableRef table) {
    return open(table, table::open);
  }

  /** The latest version, or empty if there is no table at the URI. */
  public static Optional<OpenTable> latestIfExists(TableRef table) {
    BufferAllocator allocator = Allocators.forTables();
    try {
      Optional<Dataset> dataset = table.openIfExists(allocator);
      if (dataset.isEmpty()) {
        allocator.close();
      }
      return dataset.map(opened -> new OpenTable(table, allocator, opened));
    } catch (RuntimeException e) {
      Allocators.closeAtEnd(allocator, table);
      throw e;
    }
  }

  /**
   * The version a read is pinned to, the version a tag names, or the latest.
   *
   * @param version the version to open, or null
   * @param tag the tag whose version to open (when {@code version} is null), or null for the latest
   * @throws dev.flinklance.errors.PermanentDatasetException if the table, the version or the tag
   *     does not exist
   */
  public static OpenTable at(TableRef table, Long version, String tag) {
    if (version != null) {
      return open(table, allocator -> table.open(allocator, version));
    }
    if (tag == null) {
      return latest(table);
    }
    return open(
        table,
        allocator -> {
          long tagged =
              LanceCalls.call(
                  table.uri(),
                  "cannot resolve tag '" + tag + "'",
                  () -> {
                    try (Dataset latest = table.open(allocator)) {
                      return latest.tags().getVersion(tag);
                    }
                  });
          return table.open(allocator, tagged);
        });
  }

  /** Whether there is a table at the URI (a namespace may know a table that has no data yet). */
  public static boolean exists(TableRef table) {
    Optional<OpenTable> open = latestIfExists(table);
    open.ifPresent(OpenTable::close);
    return open.isPresent();
  }

  /**
   * Creates an empty table, unless one exists, safe against writers creating it at the same moment
   * ({@link TableCreation}), and opens the version created.
   *
   * @param dataStorageVersion Lance file format version, or null for Lance's default
   * @param config table config entries the creation commit itself sets
   * @return empty if another writer created it first (open it instead)
   */
  public static Optional<OpenTable> createIfAbsent(
      TableRef table,
      Schema schema,
      boolean stableRowIds,
      String dataStorageVersion,
      Map<String, String> config) {
    BufferAllocator allocator = Allocators.forTables();
    try {
      Optional<Dataset> created =
          table.createIfAbsent(allocator, schema, stableRowIds, dataStorageVersion, config);
      if (created.isEmpty()) {
        Allocators.closeAtEnd(allocator, table);
      }
      return created.map(dataset -> new OpenTable(table, allocator, dataset));
    } catch (RuntimeException e) {
      Allocators.closeAtEnd(allocator, table);
      throw e;
    }
  }

  private static OpenTable open(TableRef table, Function<BufferAllocator, Dataset> opener) {
    BufferAllocator allocator = Allocators.forTables();
    try {
      return new OpenTable(table, allocator, opener.apply(allocator));
    } catch (RuntimeException e) {
      Allocators.closeAtEnd(allocator, table);
      throw e;
    }
  }

  public TableRef table() {
    return table;
  }

  /** The open version. */
  public Dataset dataset() {
    return dataset;
  }

  /** The allocator the open version reads with (a scan's batches come from it). */
  public BufferAllocator allocator() {
    return allocator;
  }

  /**
   * Moves to the newest version of the same table.
   *
   * @return whether the version changed
   * @throws TableReplacedException if the table at the URI was dropped or replaced
   */
  public boolean moveToLatest() {
    Dataset latest =
        LanceCalls.callOr(
            table.uri(),
            "cannot open the newest version",
            () -> dataset.checkoutVersion(dataset.latestVersion()),
            LanceErrors::isNotFound,
            null);
    if (latest == null) {
      known.verify(dataset); // a table that is gone fails here, once rechecked
      throw new LanceDatasetException(table.uri(), "the newest version is not found yet", null);
    }
    Dataset same = known.sameTable(latest); // the open version stays if not
    boolean moved = same.version() != dataset.version();
    dataset.close();
    dataset = same;
    known = VersionMark.of(same);
    return moved;
  }

  /**
   * Moves to {@code version} of the same table.
   *
   * @throws TableReplacedException if the table at the URI was dropped or replaced
   */
  public void moveTo(long version) {
    if (dataset.version() == version) {
      return;
    }
    Dataset at =
        LanceCalls.call(
            table.uri(), "cannot open version " + version, () -> dataset.checkoutVersion(version));
    known.sameTable(at);
    dataset.close();
    dataset = at;
    known = VersionMark.of(at);
  }

  /**
   * Another version of the same table, read with this table's allocator, for a user that reads
   * several versions at once (a source reader reads a version and the one before it); the caller
   * closes it before this table. A version newer than any seen so far becomes the one later moves
   * and checks are checked against, so that the check outlives the cleanup of the open version.
   *
   * @throws PermanentDatasetException if the version does not exist (cleaned up): it never comes
   *     back
   * @throws TableReplacedException if the table at the URI was dropped or replaced
   */
  public Dataset checkout(long version) {
    Dataset at;
    try {
      at = dataset.checkoutVersion(version);
    } catch (Exception e) { // Lance also throws undeclared IOExceptions from native code
      throw TableRef.versionFailure(table.uri(), version, e);
    }
    known.sameTable(at);
    if (version > known.version()) {
      known = VersionMark.of(at);
    }
    return at;
  }

  /** Moves to a version this user just committed on top of the open one. */
  public void advanceTo(Dataset committed) {
    dataset.close();
    dataset = committed;
    known = VersionMark.of(committed);
  }

  /**
   * Checks that the table at the URI still is the one open here.
   *
   * @throws TableReplacedException if it was dropped or replaced
   */
  public void verifySameTable() {
    known.verify(dataset);
  }

  /**
   * A failure that may come from the table being dropped or replaced under a call (a lookup or
   * commit meeting files that are gone): the replacement if so, with the failure suppressed in it,
   * otherwise the failure itself.
   */
  public RuntimeException explain(RuntimeException failure) {
    if (failure instanceof TableReplacedException || LanceErrors.kindOf(failure) == Kind.CONFLICT) {
      return failure;
    }
    try {
      verifySameTable();
    } catch (TableReplacedException replaced) {
      replaced.addSuppressed(failure);
      return replaced;
    }
    return failure;
  }

  @Override
  public void close() {
    try {
      dataset.close();
    } finally {
      Allocators.closeAtEnd(allocator, table);
    }
  }
}
