package dev.flinklance.sink.keys;

import dev.flinklance.access.TableRef;
import dev.flinklance.errors.LanceDatasetException;
import dev.flinklance.errors.PermanentDatasetException;
import dev.flinklance.files.TableFiles;
import dev.flinklance.key.RowKey;
import dev.flinklance.key.RowKeyCodec;
import java.io.IOException;
import java.io.Serializable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.regex.Pattern;
import org.apache.flink.annotation.Internal;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The key files of one table: {@code _keys/<uuid>.keys} under its root, each one writer subtask's
 * changed keys of one checkpoint ({@link ChangedKeys}). A writer writes one where its keys do not
 * fit inline; the committer reads them to plan the commit and deletes them once the commit landed
 * (a replay of that commit is recognised by its stamp and reads none).
 *
 * <p>A checkpoint that never completes leaves its key files behind, as it leaves its data files:
 * they are removed when {@link #ORPHAN_AGE} old, the age at which Lance's cleanup removes such data
 * files. A checkpoint restored from a savepoint older than that has lost its data files too.
 */
@Internal
public final class KeyFiles implements Serializable, AutoCloseable {
  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(KeyFiles.class);
  private static final String DIRECTORY = "_keys/";
  private static final String SUFFIX = ".keys";
  // exactly the names hold() gives: a random UUID
  private static final Pattern NAME =
      Pattern.compile("_keys/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\\.keys");
  private static final int FORMAT = 1;
  public static final Duration ORPHAN_AGE = Duration.ofDays(7);

  private final TableRef table;
  private transient Optional<TableFiles> files;

  public KeyFiles(TableRef table) {
    this.table = table;
  }

  /**
   * One writer subtask's changed keys: inline if they take at most {@code maxInlineBytes}, else in
   * a new key file. Inline is always right, only larger: a table on a store without side files, or
   * whose key file cannot be written, keeps them inline.
   */
  public ChangedKeys hold(List<RowKey> keys, long maxInlineBytes) {
    if (keys.isEmpty()) {
      return ChangedKeys.NONE;
    }
    byte[] bytes = serialize(keys);
    if (bytes.length - Integer.BYTES <= maxInlineBytes || files().isEmpty()) {
      return ChangedKeys.inline(keys);
    }
    String name = DIRECTORY + UUID.randomUUID() + SUFFIX;
    try {
      files().get().write(name, bytes);
    } catch (IOException | RuntimeException e) {
      LOG.warn(
          "Cannot write the checkpoint's {} changed keys of {} to {}; they stay in Flink's state",
          keys.size(),
          table,
          name,
          e);
      return ChangedKeys.inline(keys);
    }
    return new ChangedKeys(List.of(), List.of(new ChangedKeys.KeyFile(name, keys.size())));
  }

  /** Every key, inline and in files. */
  public List<RowKey> read(ChangedKeys keys) {
    if (keys.files().isEmpty()) {
      return keys.inline();
    }
    List<RowKey> all = new ArrayList<>(keys.inline());
    for (ChangedKeys.KeyFile file : keys.files()) {
      all.addAll(read(file));
    }
    return all;
  }

  private List<RowKey> read(ChangedKeys.KeyFile file) {
    Optional<byte[]> bytes;
    try {
      bytes = files().orElseThrow().read(file.name());
    } catch (IOException e) {
      throw new LanceDatasetException(
          table.uri(), "cannot read the changed keys of the commit from " + file.name(), e);
    }
    if (bytes.isEmpty()) {
      throw new PermanentDatasetException(
          table.uri(),
          String.format(
              "the key file %s of the commit is gone (%d changed keys whose old rows it deletes):"
                  + " deleted by hand, or older than %d days and removed as an orphan",
              file.name(), file.count(), ORPHAN_AGE.toDays()),
          null);
    }
    List<RowKey> keys;
    try {
      DataInputDeserializer in = new DataInputDeserializer(bytes.get());
      int format = in.readInt();
      if (format != FORMAT) {
        throw new IOException("format " + format + ", expected " + FORMAT);
      }
      keys = RowKeyCodec.readList(in);
    } catch (IOException e) {
      throw new PermanentDatasetException(
          table.uri(), "the key file " + file.name() + " is not one this sink wrote", e);
    }
    if (keys.size() != file.count()) {
      throw new PermanentDatasetException(
          table.uri(),
          String.format(
              "the key file %s holds %d keys, the commit names %d",
              file.name(), keys.size(), file.count()),
          null);
    }
    return keys;
  }

  /** Deletes the key files of a commit that landed; one that cannot be is left as an orphan. */
  public void delete(ChangedKeys keys) {
    for (ChangedKeys.KeyFile file : keys.files()) {
      try {
        files().orElseThrow().delete(file.name());
      } catch (IOException | RuntimeException e) {
        LOG.warn(
            "Cannot delete the key file {} of {}; it is removed when {} days old",
            file.name(),
            table,
            ORPHAN_AGE.toDays(),
            e);
      }
    }
  }

  /**
   * Deletes the key files last modified before {@code beforeMillis}, nothing else.
   *
   * @return how many
   */
  public int deleteOrphans(long beforeMillis) {
    if (files().isEmpty()) {
      return 0;
    }
    int deleted = 0;
    try {
      for (TableFiles.Listed file : files().get().list(DIRECTORY)) {
        if (NAME.matcher(file.name()).matches() && file.lastModifiedMillis() < beforeMillis) {
          files().get().delete(file.name());
          deleted++;
        }
      }
    } catch (IOException | RuntimeException e) {
      LOG.warn(
          "Cannot remove the orphaned key files of {}; trying again at the next run", table, e);
    }
    if (deleted > 0) {
      LOG.info(
          "Removed {} key files of {} older than {} days", deleted, table, ORPHAN_AGE.toDays());
    }
    return deleted;
  }

  private static byte[] serialize(List<RowKey> keys) {
    DataOutputSerializer out = new DataOutputSerializer(16 + keys.size() * 12);
    try {
      out.writeInt(FORMAT);
      RowKeyCodec.writeList(keys, out);
    } catch (IOException e) {
      throw new IllegalStateException("in-memory serialization failed", e);
    }
    return out.getCopyOfBuffer();
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
