package dev.flinklance.files;

import dev.flinklance.access.TableRef;
import dev.flinklance.errors.LanceDatasetException;
import java.io.IOException;
import java.io.Serializable;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.regex.Pattern;
import org.apache.flink.annotation.Internal;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One directory of files beside a table that hold what would make Flink's state (and the records
 * between operators) grow with the work: each written once under a random name, only that name
 * travelling in state; read back by name, deleted by name once used, and removed as an orphan once
 * older than {@code orphanAge} (a checkpoint that never completed, or a savepoint nobody restores).
 * Keeping the bytes inline is always right, only larger: on a store without side files, or when a
 * file cannot be written, {@link #write} leaves them to the caller.
 */
@Internal
public final class HeldFiles implements Serializable, AutoCloseable {
  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(HeldFiles.class);
  private static final String UUID_PATTERN =
      "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";

  private final TableRef table;
  private final String directory;
  private final String suffix;
  private final String what;
  private final Duration orphanAge;
  private final Pattern names;
  private transient Optional<TableFiles> files;

  /**
   * @param directory the directory under the table's root, ending in {@code /}
   * @param what what a file holds, for messages ("key file")
   */
  public HeldFiles(
      TableRef table, String directory, String suffix, String what, Duration orphanAge) {
    this.table = table;
    this.directory = directory;
    this.suffix = suffix;
    this.what = what;
    this.orphanAge = orphanAge;
    // exactly the names write() gives
    this.names = Pattern.compile(Pattern.quote(directory) + UUID_PATTERN + Pattern.quote(suffix));
  }

  public TableRef table() {
    return table;
  }

  /**
   * Writes {@code bytes} to a new file.
   *
   * @return its name relative to the table's root, or empty: keep the bytes inline
   */
  public Optional<String> write(byte[] bytes) {
    if (files().isEmpty()) {
      return Optional.empty();
    }
    String name = directory + UUID.randomUUID() + suffix;
    try {
      files().get().write(name, bytes);
      return Optional.of(name);
    } catch (IOException | RuntimeException e) {
      LOG.warn("Cannot write the {} {} of {}; it stays in Flink's state", what, name, table, e);
      return Optional.empty();
    }
  }

  /**
   * The file's bytes, or empty if it is gone.
   *
   * @throws LanceDatasetException naming the file if it cannot be read
   */
  public Optional<byte[]> read(String name) {
    try {
      return files().orElseThrow().read(name);
    } catch (IOException e) {
      throw new LanceDatasetException(table.uri(), "cannot read the " + what + " " + name, e);
    }
  }

  /**
   * Deletes a file that was used; one that cannot be deleted is left as an orphan. A name that
   * {@link #write} does not give (a checkpoint's state is not to be trusted with paths) is left.
   */
  public void delete(String name) {
    if (!names.matcher(name).matches()) {
      LOG.warn(
          "Not deleting {} of {}: not the name of a {} this connector wrote", name, table, what);
      return;
    }
    try {
      files().orElseThrow().delete(name);
    } catch (IOException | RuntimeException e) {
      LOG.warn(
          "Cannot delete the {} {} of {}; it is removed when {} old",
          what,
          name,
          table,
          orphanAge,
          e);
    }
  }

  /**
   * Deletes the files of this directory last modified more than {@code orphanAge} before {@code
   * nowMillis}, and only those with a name {@link #write} gives.
   *
   * @return how many
   */
  public int deleteOrphans(long nowMillis) {
    if (files().isEmpty()) {
      return 0;
    }
    long before = nowMillis - orphanAge.toMillis();
    int deleted = 0;
    try {
      for (TableFiles.Listed file : files().get().list(directory)) {
        if (names.matcher(file.name()).matches() && file.lastModifiedMillis() < before) {
          files().get().delete(file.name());
          deleted++;
        }
      }
    } catch (IOException | RuntimeException e) {
      LOG.warn(
          "Cannot remove the orphaned {}s of {}; trying again at the next run", what, table, e);
    }
    if (deleted > 0) {
      LOG.info("Removed {} {}s of {} older than {}", deleted, what, table, orphanAge);
    }
    return deleted;
  }

  private Optional<TableFiles> files() {
    if (files == null) {
      files = TableFiles.of(table);
    }
    return files;
  }

  @Override
  public void close() {
    if (files != null) {
      files.ifPresent(TableFiles::close);
      files = null;
    }
  }
}
