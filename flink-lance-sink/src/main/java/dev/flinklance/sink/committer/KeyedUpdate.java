package dev.flinklance.sink.committer;

import dev.flinklance.errors.LanceCalls;
import dev.flinklance.index.KeyLookup;
import dev.flinklance.key.PrimaryKey;
import dev.flinklance.key.RowKey;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.lance.Dataset;
import org.lance.FragmentMetadata;
import org.lance.operation.Update;

/**
 * The one Lance Update that applies a checkpoint's changes to one table version: the rows of every
 * changed key in that version are deleted (deletion files, written by {@code Fragment.deleteRows}
 * without a commit) and the checkpoint's new fragments added. Row offsets are only valid for the
 * version they were found in: a commit that conflicts plans again on the newer version.
 *
 * <p>The Update sets no update mode: with {@code RewriteRows} lance-core 7.0.0 counts the new
 * fragments of a stable-row-id table as covered by the key's BTree index (which does not hold their
 * rows), and lookups through the index would then miss them.
 *
 * @param removedRows rows of the version the Update deletes
 */
record KeyedUpdate(Update operation, long removedRows, KeyLookup.Found lookup, long lookupMs) {

  /**
   * @param keys the committable's removed keys, read from its key files
   */
  static KeyedUpdate plan(
      Dataset version, PrimaryKey key, LanceCommittable committable, List<RowKey> keys) {
    long start = System.nanoTime();
    KeyLookup.Found found = KeyLookup.find(version, key, keys);
    long lookupMs = (System.nanoTime() - start) / 1_000_000;
    List<Long> removed = new ArrayList<>();
    List<FragmentMetadata> updated = new ArrayList<>();
    for (Map.Entry<Integer, List<Integer>> fragment : found.offsets().entrySet()) {
      FragmentMetadata after =
          LanceCalls.call(
              version.uri(),
              "cannot delete the replaced rows of fragment " + fragment.getKey(),
              () -> version.getFragment(fragment.getKey()).deleteRows(fragment.getValue()));
      if (after == null) {
        removed.add((long) fragment.getKey()); // every row of the fragment is deleted
      } else {
        updated.add(after);
      }
    }
    Update update =
        Update.builder()
            .removedFragmentIds(removed)
            .updatedFragments(updated)
            .newFragments(committable.fragments())
            .build();
    return new KeyedUpdate(update, found.rows(), found, lookupMs);
  }
}
