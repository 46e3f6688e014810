package dev.flinklance.sink.keys;

import dev.flinklance.key.RowKey;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.flink.annotation.Internal;

/**
 * The primary keys one checkpoint changed (upserted or deleted): the commit deletes the rows they
 * have in the table. A few travel inline; a writer subtask with many writes them to a key file
 * beside the table ({@link KeyFiles}) and only the file's name travels, so that write results and
 * the committer's state stay small however many keys a checkpoint changed.
 *
 * @param inline keys held here
 * @param files key files holding the others
 */
@Internal
public record ChangedKeys(List<RowKey> inline, List<KeyFile> files) {
  public static final ChangedKeys NONE = new ChangedKeys(List.of(), List.of());

  /**
   * A key file.
   *
   * @param name its path relative to the table's root
   * @param count how many keys it holds
   */
  public record KeyFile(String name, int count) {}

  public ChangedKeys {
    inline = List.copyOf(inline);
    files = List.copyOf(files);
  }

  public static ChangedKeys inline(List<RowKey> keys) {
    return new ChangedKeys(keys, List.of());
  }

  /**
   * All of several results' keys. Inline keys are kept once: the rows a dynamic sink's writer wrote
   * before a widening of the table hand on the keys a later change took out of them again.
   */
  public static ChangedKeys concat(Collection<ChangedKeys> all) {
    Set<RowKey> inline = new LinkedHashSet<>();
    List<KeyFile> files = new ArrayList<>();
    for (ChangedKeys keys : all) {
      inline.addAll(keys.inline);
      files.addAll(keys.files);
    }
    return new ChangedKeys(List.copyOf(inline), files);
  }

  /** How many keys, counting a key held twice (in two files) twice. */
  public long count() {
    return inline.size() + files.stream().mapToLong(KeyFile::count).sum();
  }

  public boolean isEmpty() {
    return inline.isEmpty() && files.isEmpty();
  }
}
