package dev.flinklance.index;

import dev.flinklance.errors.LanceCalls;
import dev.flinklance.key.PrimaryKey;
import dev.flinklance.key.PrimaryKey.KeyMatcher;
import dev.flinklance.key.RowKey;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.flink.annotation.Internal;
import org.lance.Dataset;
import org.lance.Fragment;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.ScanOptions;

/**
 * Finds the rows of a table version that hold any of a set of primary keys. Two ways, chosen per
 * lookup by what they cost (docs/lance-core.md has the measurements, lance-core 7.0.0):
 *
 * <ul>
 *   <li>through the key's BTree indexes ({@link KeyIndex}): the keys, sorted, in IN lists of
 *       {@value #KEYS_PER_INDEX_QUERY} (Lance's BTree is slow for long IN lists), a cost per key;
 *   <li>by scanning the key columns and matching them in Java, a cost per row, whatever the number
 *       of keys (Lance's own IN filter is slow for long lists too).
 * </ul>
 *
 * The index serves the fragments it covers when they hold at least {@value #INDEXED_ROWS_PER_KEY}
 * rows per key; the other fragments (appended since the index was brought up to date) are always
 * scanned. Every match is checked against the keys in Java, so a filter only has to let the wanted
 * rows through.
 */
@Internal
public final class KeyLookup {
  public static final int KEYS_PER_INDEX_QUERY = 128;
  static final long INDEXED_ROWS_PER_KEY = 4_000;

  private KeyLookup() {}

  /**
   * Where the keys' rows are.
   *
   * @param offsets per fragment id, the row offsets (ascending) holding a wanted key
   * @param rows how many rows hold a wanted key
   * @param indexedKeys whether the index served the fragments it covers
   * @param scannedRows rows read by scanning (not through the index)
   */
  public record Found(
      Map<Integer, List<Integer>> offsets, long rows, boolean indexedKeys, long scannedRows) {}

  public static Found find(Dataset dataset, PrimaryKey key, Collection<RowKey> keys) {
    Map<Integer, List<Integer>> offsets = new TreeMap<>();
    if (keys.isEmpty()) {
      return new Found(offsets, 0, false, 0);
    }
    Set<Integer> covered = KeyIndex.coveredFragments(dataset, key);
    List<Integer> indexed = new ArrayList<>();
    List<Integer> scanned = new ArrayList<>();
    long indexedRows = 0;
    long scannedRows = 0;
    for (Fragment fragment : dataset.getFragments()) {
      long rows = fragment.metadata().getPhysicalRows();
      if (covered.contains(fragment.getId())) {
        indexed.add(fragment.getId());
        indexedRows += rows;
      } else {
        scanned.add(fragment.getId());
        scannedRows += rows;
      }
    }
    KeyMatcher matcher = key.matcher(keys);
    boolean useIndex =
        !indexed.isEmpty()
            && indexedRows >= INDEXED_ROWS_PER_KEY * keys.size()
            && key.filterFor(keys).isPresent();
    if (useIndex) {
      List<RowKey> sorted = new ArrayList<>(keys);
      sorted.sort(null);
      for (int from = 0; from < sorted.size(); from += KEYS_PER_INDEX_QUERY) {
        List<RowKey> chunk =
            sorted.subList(from, Math.min(sorted.size(), from + KEYS_PER_INDEX_QUERY));
        scan(dataset, key, indexed, key.filterFor(chunk), true, matcher, offsets);
      }
    } else {
      scanned.addAll(indexed);
      scannedRows += indexedRows;
    }
    scan(dataset, key, scanned, Optional.empty(), false, matcher, offsets);
    long rows = offsets.values().stream().mapToLong(List::size).sum();
    offsets.values().forEach(list -> list.sort(null));
    return new Found(offsets, rows, useIndex, scannedRows);
  }

  private static void scan(
      Dataset dataset,
      PrimaryKey key,
      List<Integer> fragmentIds,
      Optional<String> filter,
      boolean useIndex,
      KeyMatcher matcher,
      Map<Integer, List<Integer>> offsets) {
    if (fragmentIds.isEmpty()) {
      return;
    }
    ScanOptions.Builder options =
        new ScanOptions.Builder()
            .columns(key.columns())
            .fragmentIds(fragmentIds)
            .withRowAddress(true)
            .useScalarIndex(useIndex);
    filter.ifPresent(options::filter);
    LanceCalls.run(
        dataset.uri(),
        "cannot look up the rows of " + key + " keys",
        () -> {
          try (LanceScanner scanner = dataset.newScan(options.build());
              ArrowReader reader = scanner.scanBatches()) {
            while (reader.loadNextBatch()) {
              VectorSchemaRoot batch = reader.getVectorSchemaRoot();
              UInt8Vector addresses = (UInt8Vector) batch.getVector("_rowaddr");
              matcher.match(
                  batch,
                  row -> {
                    long address = addresses.get(row);
                    offsets
                        .computeIfAbsent((int) (address >>> 32), id -> new ArrayList<>())
                        .add((int) address);
                  });
            }
          }
        });
  }
}
