package dev.flinklance.table.lookup;

import dev.flinklance.access.FollowedTable;
import dev.flinklance.arrow.read.ArrowColumnarBatch;
import dev.flinklance.errors.LanceCalls;
import dev.flinklance.errors.LanceDatasetException;
import dev.flinklance.errors.PermanentDatasetException;
import dev.flinklance.index.KeyLookup;
import dev.flinklance.index.ScalarIndex;
import dev.flinklance.key.PrimaryKey;
import dev.flinklance.key.RowKey;
import dev.flinklance.metrics.LanceMetrics;
import dev.flinklance.table.filter.LanceFilters;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.lance.Dataset;
import org.lance.Fragment;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.ScanOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One lookup task's reads of a Lance table: the rows of a set of keys, all from one table version,
 * in one Lance query per {@value #KEYS_PER_QUERY} keys. A query is a scan of the produced columns
 * with the keys as IN lists ({@link PrimaryKey#filterFor}), which Lance answers through a BTree
 * index on a key column where there is one (the fragments the index does not cover yet are scanned)
 * and by scanning the key columns otherwise; each returned row's key is matched against the wanted
 * keys here, so a composite key's IN lists only have to let its rows through. A failure that may
 * pass is retried {@code lookup.max-retries} times, on the newest version if the refresh is due.
 */
final class TableLookup implements AutoCloseable {
  /** Lance's BTree is slow for long IN lists (KeyLookup's measurement); so are scans' filters. */
  static final int KEYS_PER_QUERY = KeyLookup.KEYS_PER_INDEX_QUERY;

  private static final Logger LOG = LoggerFactory.getLogger(TableLookup.class);

  private final LookupSpec spec;
  private final PrimaryKey lookupKey;
  private final PrimaryKey rowKey;
  private final RowDataSerializer copier;
  private final FollowedTable table;
  private final Counter keysLookedUp;
  private final Counter queries;
  private final Counter retries;
  private volatile long version = -1;
  private boolean warnedUnindexed;

  /**
   * @param metrics where the task's lookup metrics go
   */
  TableLookup(LookupSpec spec, MetricGroup metrics) {
    String uri = spec.table().uri();
    this.spec = spec;
    this.lookupKey = PrimaryKey.of(spec.keyRowType(), spec.lanceKeyColumns(), uri);
    this.rowKey = PrimaryKey.of(spec.producedType(), spec.lanceKeyColumns(), uri);
    this.copier = new RowDataSerializer(spec.producedType());
    this.table =
        new FollowedTable(
            spec.table(),
            spec.version(),
            spec.tag(),
            spec.refreshInterval(),
            spec.producedType(),
            this::describe);
    MetricGroup group = LanceMetrics.tableGroup(metrics, spec.table());
    this.keysLookedUp = group.counter("lookupKeys");
    this.queries = group.counter("lookupQueries");
    this.retries = group.counter("lookupRetries");
    group.gauge("lookupTableVersion", () -> version);
  }

  void open() {
    table.open();
  }

  /**
   * The key of one of Flink's key rows, or null if a key column is NULL: {@code =} matches no row
   * then, so no lookup is needed.
   */
  RowKey keyOf(RowData keyRow) {
    return lookupKey.nullColumn(keyRow) == null ? lookupKey.keyOf(keyRow) : null;
  }

  /**
   * The rows of {@code keys} in one version of the table; a key without rows is absent.
   *
   * @throws PermanentDatasetException if the table was dropped, replaced or changed in a column the
   *     join reads
   * @throws LanceDatasetException if the last retry failed too
   */
  Map<RowKey, List<RowData>> lookup(Collection<RowKey> keys) {
    keysLookedUp.inc(keys.size());
    return spec.withRetries(
        () -> {
          try {
            return table.read(dataset -> read(dataset, keys));
          } catch (LanceDatasetException e) {
            checkSameTable(); // the files of a dropped table are gone: say so rather than that
            throw e;
          }
        },
        (failure, retry, delay) -> {
          LOG.warn(
              "Lookup of {} keys in {} failed (retry {} of {} in {} ms)",
              keys.size(),
              spec.table().uri(),
              retry,
              spec.maxRetries(),
              delay.toMillis(),
              failure);
          retries.inc();
        });
  }

  /** A dropped or replaced table fails every retry; one that cannot be reached may come back. */
  private void checkSameTable() {
    try {
      table.checkSameTable();
    } catch (PermanentDatasetException e) {
      throw e;
    } catch (LanceDatasetException e) {
      LOG.debug("Cannot tell whether {} is still the table read", spec.table().uri(), e);
    }
  }

  private Map<RowKey, List<RowData>> read(Dataset dataset, Collection<RowKey> keys) {
    Map<RowKey, List<RowData>> found = new HashMap<>();
    List<RowKey> sorted = new ArrayList<>(new HashSet<>(keys));
    sorted.sort(null); // neighbouring keys share the index's pages
    for (int from = 0; from < sorted.size(); from += KEYS_PER_QUERY) {
      List<RowKey> chunk = sorted.subList(from, Math.min(sorted.size(), from + KEYS_PER_QUERY));
      Optional<String> keyFilter = spec.keyFilter() ? lookupKey.filterFor(chunk) : Optional.empty();
      scan(dataset, keyFilter, new HashSet<>(chunk), found);
    }
    return found;
  }

  private void scan(
      Dataset dataset,
      Optional<String> keyFilter,
      Set<RowKey> wanted,
      Map<RowKey, List<RowData>> found) {
    List<String> filters = new ArrayList<>();
    keyFilter.ifPresent(filters::add);
    Optional.ofNullable(spec.filter()).ifPresent(filters::add);
    ScanOptions.Builder options =
        new ScanOptions.Builder().columns(spec.producedType().getFieldNames());
    if (!filters.isEmpty()) {
      options.filter(LanceFilters.and(filters));
    }
    queries.inc();
    LanceCalls.run(
        spec.table().uri(),
        String.format(
            "cannot look up %d keys %s in version %d", wanted.size(), rowKey, dataset.version()),
        () -> {
          try (LanceScanner scanner = dataset.newScan(options.build());
              ArrowReader reader = scanner.scanBatches()) {
            while (reader.loadNextBatch()) {
              ArrowColumnarBatch batch =
                  ArrowColumnarBatch.of(
                      reader.getVectorSchemaRoot(), spec.producedType().getFieldNames(), reader);
              for (int i = 0; i < batch.rowCount(); i++) {
                RowData row = batch.row(i);
                if (rowKey.nullColumn(row) == null) {
                  RowKey key = rowKey.keyOf(row);
                  if (wanted.contains(key)) {
                    found.computeIfAbsent(key, k -> new ArrayList<>()).add(copier.copy(row));
                  }
                }
              }
            }
          }
        });
  }

  /** Says once how a task's lookups find their rows, and what they cost without an index. */
  private void describe(Dataset dataset) {
    version = dataset.version();
    Map<String, ScalarIndex> indexes = new HashMap<>();
    for (ScalarIndex index : ScalarIndex.btreesOf(dataset)) {
      if (spec.lanceKeyColumns().contains(index.column())) {
        indexes.putIfAbsent(index.column(), index);
      }
    }
    long rows = 0;
    long unindexed = 0;
    for (Fragment fragment : dataset.getFragments()) {
      long fragmentRows = fragment.metadata().getPhysicalRows();
      rows += fragmentRows;
      if (indexes.values().stream().noneMatch(i -> i.fragmentIds().contains(fragment.getId()))) {
        unindexed += fragmentRows;
      }
    }
    String uri = spec.table().uri();
    if (!spec.keyFilter()) {
      warnOnce(
          "Lookups by {} in {} scan all {} rows of version {}: a key column is dictionary-encoded,"
              + " and Lance cannot compare it with a value",
          rowKey,
          uri,
          rows,
          dataset.version());
    } else if (indexes.isEmpty()) {
      warnOnce(
          "Lookups by {} in {} read the key columns of all {} rows of version {} (Lance scans"
              + " them for every query): none of the key columns has a scalar index. Build one"
              + " with CALL <catalog>.sys.create_scalar_index('<database>.<table>', '{}')",
          rowKey,
          uri,
          rows,
          dataset.version(),
          spec.lanceKeyColumns().get(0));
    } else if (unindexed > rows / 2) {
      warnOnce(
          "Lookups by {} in {} read the key columns of {} of the {} rows of version {} (Lance scans"
              + " them for every query): the scalar index(es) {} do not cover the fragments"
              + " appended since they were built or brought up to date. Bring them up to date"
              + " with CALL <catalog>.sys.create_scalar_index('<database>.<table>', '{}'); the"
              + " compaction pass does it once 100,000 rows are not covered",
          rowKey,
          uri,
          unindexed,
          rows,
          dataset.version(),
          indexes.values().stream().map(ScalarIndex::name).collect(Collectors.joining(", ")),
          indexes.keySet().iterator().next());
    } else {
      LOG.info(
          "Lookups by {} in {} (version {}, {} rows) go through the scalar index(es) {}; {} rows"
              + " appended since the index was brought up to date are scanned",
          rowKey,
          uri,
          dataset.version(),
          rows,
          indexes.values().stream().map(ScalarIndex::name).collect(Collectors.joining(", ")),
          unindexed);
    }
  }

  private void warnOnce(String message, Object... arguments) {
    if (!warnedUnindexed) {
      warnedUnindexed = true;
      LOG.warn(message, arguments);
    }
  }

  @Override
  public void close() {
    table.close();
  }
}
