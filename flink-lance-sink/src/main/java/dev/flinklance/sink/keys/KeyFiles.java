package dev.flinklance.sink.keys;

import dev.flinklance.access.TableRef;
import dev.flinklance.errors.PermanentDatasetException;
import dev.flinklance.files.HeldFiles;
import dev.flinklance.key.RowKey;
import dev.flinklance.key.RowKeyCodec;
import java.io.IOException;
import java.io.Serializable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.annotation.Internal;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;

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
  private static final int FORMAT = 1;
  public static final Duration ORPHAN_AGE = Duration.ofDays(7);

  private final HeldFiles files;

  public KeyFiles(TableRef table) {
    this.files = new HeldFiles(table, "_keys/", ".keys", "key file", ORPHAN_AGE);
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
    if (bytes.length - Integer.BYTES <= maxInlineBytes) {
      return ChangedKeys.inline(keys);
    }
    return files
        .write(bytes)
        .map(
            name -> new ChangedKeys(List.of(), List.of(new ChangedKeys.KeyFile(name, keys.size()))))
        .orElseGet(() -> ChangedKeys.inline(keys));
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
    String uri = files.table().uri();
    byte[] bytes =
        files
            .read(file.name())
            .orElseThrow(
                () ->
                    new PermanentDatasetException(
                        uri,
                        String.format(
                            "the key file %s of the commit is gone (%d changed keys whose old rows"
                                + " it deletes): deleted by hand, or older than %d days and"
                                + " removed as an orphan",
                            file.name(), file.count(), ORPHAN_AGE.toDays()),
                        null));
    List<RowKey> keys;
    try {
      DataInputDeserializer in = new DataInputDeserializer(bytes);
      int format = in.readInt();
      if (format != FORMAT) {
        throw new IOException("format " + format + ", expected " + FORMAT);
      }
      keys = RowKeyCodec.readList(in);
    } catch (IOException e) {
      throw new PermanentDatasetException(
          uri, "the key file " + file.name() + " is not one this sink wrote", e);
    }
    if (keys.size() != file.count()) {
      throw new PermanentDatasetException(
          uri,
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
      files.delete(file.name());
    }
  }

  /**
   * Deletes the key files older than {@link #ORPHAN_AGE} at {@code nowMillis}, nothing else.
   *
   * @return how many
   */
  public int deleteOrphans(long nowMillis) {
    return files.deleteOrphans(nowMillis);
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

  @Override
  public void close() {
    files.close();
  }
}
