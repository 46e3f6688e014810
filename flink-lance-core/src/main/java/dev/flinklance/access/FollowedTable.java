package dev.flinklance.access;

import dev.flinklance.arrow.read.LanceReadSchema;
import dev.flinklance.arrow.read.LostColumns;
import dev.flinklance.arrow.read.ReadableAs;
import dev.flinklance.errors.LanceDatasetException;
import dev.flinklance.errors.PermanentDatasetException;
import dev.flinklance.errors.TableReplacedException;
import java.time.Duration;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Consumer;
import java.util.function.Function;
import org.apache.flink.annotation.Internal;
import org.apache.flink.table.types.logical.RowType;
import org.lance.Dataset;
import org.lance.schema.LanceSchema;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One task's open version of a table, shared by the task's threads (the vector search and the
 * lookup join): work runs against one version under the read lock, and once {@code refreshInterval}
 * has passed the next caller moves it to the table's newest version under the write lock, which
 * waits for the work in flight. A move checks that the table still is the one the task opened
 * ({@link OpenTable#moveToLatest}) and that the columns the task reads can still be read as
 * declared: a table dropped, or deleted and created again, and a column dropped or retyped are
 * {@link PermanentDatasetException}s naming the table, since every restart would meet them again. A
 * table that cannot be reached stays at its version until the next attempt.
 */
@Internal
public final class FollowedTable implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(FollowedTable.class);

  private final TableRef table;
  private final Long version;
  private final String tag;
  private final long refreshNanos;
  private final boolean follows;
  private final RowType declared;
  private final Consumer<Dataset> onVersion;
  private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
  private OpenTable open;
  private volatile long nextRefresh;

  /**
   * @param version the version to open (pinned), or null
   * @param tag the tag whose version to open (pinned), or null; both null: the latest, followed
   * @param refreshInterval how often to move to the newest version; zero never moves
   * @param declared the columns the task reads, by name, as it declares them
   * @param onVersion called with the dataset, under the write lock, at the first version and after
   *     each move to another one
   */
  public FollowedTable(
      TableRef table,
      Long version,
      String tag,
      Duration refreshInterval,
      RowType declared,
      Consumer<Dataset> onVersion) {
    this.table = table;
    this.version = version;
    this.tag = tag;
    this.refreshNanos = refreshInterval.toNanos();
    this.follows = follows(version, tag, refreshInterval);
    this.declared = declared;
    this.onVersion = onVersion;
  }

  /** Whether a task at {@code version} / {@code tag} with this interval moves to new versions. */
  public static boolean follows(Long version, String tag, Duration refreshInterval) {
    return version == null && tag == null && !refreshInterval.isZero();
  }

  public void open() {
    open = OpenTable.at(table, version, tag);
    checkColumns(table.uri(), open.dataset(), declared);
    nextRefresh = System.nanoTime() + refreshNanos;
    onVersion.accept(open.dataset());
  }

  /** Runs {@code work} against one version, after moving to the newest one if that is due. */
  public <T> T read(Function<Dataset, T> work) {
    refreshIfDue();
    lock.readLock().lock();
    try {
      return work.apply(open.dataset());
    } finally {
      lock.readLock().unlock();
    }
  }

  /**
   * Checks that the table at the URI still is the one this task reads, after a read failed: a table
   * dropped or replaced fails every retry, so it ends the job.
   *
   * @throws PermanentDatasetException if it is not
   * @throws LanceDatasetException if the table cannot be reached to tell
   */
  public void checkSameTable() {
    lock.readLock().lock();
    try {
      open.verifySameTable();
    } catch (TableReplacedException e) {
      throw replacedWhileRead(table.uri(), e);
    } finally {
      lock.readLock().unlock();
    }
  }

  /**
   * Checks that the table behind {@code handle} still is the one {@code read} was taken from.
   *
   * @throws PermanentDatasetException naming the table if it was dropped or replaced
   */
  public static void checkSameTable(String uri, VersionMark read, Dataset handle) {
    try {
      read.verify(handle);
    } catch (TableReplacedException e) {
      throw replacedWhileRead(uri, e);
    }
  }

  private static PermanentDatasetException replacedWhileRead(String uri, TableReplacedException e) {
    return new PermanentDatasetException(
        uri,
        "the table was dropped or replaced while this job read it ("
            + e.evidence()
            + "). Restart the job to read the table now at the URI",
        null);
  }

  private void refreshIfDue() {
    if (!follows || System.nanoTime() < nextRefresh) {
      return;
    }
    lock.writeLock().lock();
    try {
      if (System.nanoTime() < nextRefresh) {
        return; // another thread moved it meanwhile
      }
      long before = open.dataset().version();
      LanceSchema schemaBefore = LanceReadSchema.lanceFieldsOf(open.dataset()).orElse(null);
      boolean moved = false;
      try {
        moved = open.moveToLatest();
      } catch (TableReplacedException e) {
        throw replacedWhileRead(table.uri(), e);
      } catch (PermanentDatasetException e) {
        throw e;
      } catch (Exception e) { // Lance also throws undeclared IOExceptions from native code
        LOG.warn(
            "Cannot move {} to its newest version; reading version {} until the next attempt",
            table,
            before,
            e);
      }
      nextRefresh = System.nanoTime() + refreshNanos;
      if (moved) {
        checkNoneLost(table.uri(), schemaBefore, before, open.dataset(), declared);
        checkColumns(table.uri(), open.dataset(), declared);
        LOG.debug("{} moved from version {} to {}", table, before, open.dataset().version());
        onVersion.accept(open.dataset());
      }
    } finally {
      lock.writeLock().unlock();
    }
  }

  /**
   * Checks that no schema change since version {@code before} (whose schema was {@code
   * schemaBefore}) took a column the task reads away: one dropped and added again (NULL in every
   * older row) has the declared name and type, and would pass {@link #checkColumns}.
   *
   * @throws PermanentDatasetException naming the column, the change and the versions
   */
  public static void checkNoneLost(
      String uri, LanceSchema schemaBefore, long before, Dataset dataset, RowType declared) {
    LanceSchema now = LanceReadSchema.lanceFieldsOf(dataset).orElse(null);
    if (schemaBefore == null || now == null) {
      return; // Lance cannot describe the fields: checkColumns goes by name
    }
    LostColumns.between(schemaBefore, now, declared.getFieldNames())
        .ifPresent(
            what -> {
              throw new PermanentDatasetException(
                  uri,
                  String.format(
                      "version %d no longer has the columns this job reads: since version %d,"
                          + " which it read before, another client %s. Start a job that reads the"
                          + " table's columns now",
                      dataset.version(), before, what),
                  null);
            });
  }

  /**
   * Checks that {@code dataset}'s version still has the declared columns, readable as declared: the
   * job was planned with the schema of then, and {@link
   * dev.flinklance.arrow.read.ArrowColumnarBatch} reads each column as its Arrow type says.
   *
   * @throws PermanentDatasetException naming the column and the version
   */
  public static void checkColumns(String uri, Dataset dataset, RowType declared) {
    RowType now;
    try {
      now = LanceReadSchema.of(dataset).rowType(declared.getFieldNames());
    } catch (IllegalArgumentException e) { // a column dropped, or one without a Flink type now
      throw new PermanentDatasetException(
          uri, "version " + dataset.version() + " no longer has the columns this job reads", e);
    } catch (Exception e) { // Lance also throws undeclared IOExceptions from native code
      throw LanceDatasetException.wrap(
          uri, "cannot read the schema of version " + dataset.version(), e);
    }
    ReadableAs.mismatch(declared, now)
        .ifPresent(
            problem -> {
              throw new PermanentDatasetException(
                  uri, "at version " + dataset.version() + ", " + problem, null);
            });
  }

  @Override
  public void close() {
    if (open != null) {
      open.close();
      open = null;
    }
  }
}
