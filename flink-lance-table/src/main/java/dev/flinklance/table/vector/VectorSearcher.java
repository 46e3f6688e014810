package dev.flinklance.table.vector;

import dev.flinklance.access.FollowedTable;
import dev.flinklance.arrow.read.ArrowColumnarBatch;
import dev.flinklance.errors.LanceCalls;
import dev.flinklance.errors.PermanentDatasetException;
import dev.flinklance.index.VectorIndex;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.utils.JoinedRowData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.lance.Dataset;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.Query;
import org.lance.ipc.ScanOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One search task's open table ({@link FollowedTable}): runs nearest-neighbour queries against one
 * version of it and, every {@code vector-search.refresh-interval}, moves to the table's newest
 * version. Safe for concurrent searches (the async function's threads); a move waits for the
 * searches in flight.
 */
final class VectorSearcher implements AutoCloseable {
  static final String DISTANCE = "_distance";
  private static final Logger LOG = LoggerFactory.getLogger(VectorSearcher.class);

  private final VectorSearchSpec spec;
  private final List<String> columns;
  private final RowDataSerializer rowCopier;
  private final FollowedTable table;

  VectorSearcher(VectorSearchSpec spec) {
    this.spec = spec;
    this.columns = spec.scanColumns();
    this.rowCopier = new RowDataSerializer(spec.producedType());
    this.table =
        new FollowedTable(
            spec.table(),
            spec.version(),
            spec.tag(),
            spec.config().refreshInterval(),
            spec.producedType(),
            this::describeIndex);
  }

  void open() {
    table.open();
  }

  /**
   * The {@code k} rows nearest to {@code key}, nearest first: the produced columns, then the
   * distance as {@code score}.
   */
  List<RowData> search(float[] key, int k) {
    Integer ef = spec.config().ef();
    if (ef != null && ef < k) {
      throw new PermanentDatasetException(
          spec.table().uri(),
          String.format(
              "VECTOR_SEARCH on column '%s': '%s' (%d) must be at least top_k (%d)",
              spec.column().name(), VectorSearchOptions.EF.key(), ef, k),
          null);
    }
    return table.read(dataset -> search(dataset, key, k));
  }

  private List<RowData> search(Dataset dataset, float[] key, int k) {
    return LanceCalls.call(
        spec.table().uri(),
        "cannot search column '" + spec.column().name() + "' of version " + dataset.version(),
        () -> {
          try (LanceScanner scanner = dataset.newScan(scanOptions(key, k));
              ArrowReader reader = scanner.scanBatches()) {
            List<RowData> rows = new ArrayList<>(k);
            while (reader.loadNextBatch()) {
              VectorSchemaRoot root = reader.getVectorSchemaRoot();
              ArrowColumnarBatch batch =
                  ArrowColumnarBatch.of(root, spec.producedType().getFieldNames(), reader);
              Float4Vector distances = (Float4Vector) root.getVector(DISTANCE);
              for (int i = 0; i < batch.rowCount(); i++) {
                RowData row = rowCopier.copy(batch.row(i));
                rows.add(new JoinedRowData(row, GenericRowData.of((double) distances.get(i))));
              }
            }
            return rows;
          }
        });
  }

  private ScanOptions scanOptions(float[] key, int k) {
    VectorSearchConfig config = spec.config();
    Query.Builder query =
        new Query.Builder()
            .setColumn(spec.column().name())
            .setKey(key)
            .setK(k)
            .setNprobes(config.nprobes())
            .setDistanceType(spec.metric().toLance());
    if (config.refineFactor() != null) {
      query.setRefineFactor(config.refineFactor());
    }
    if (config.ef() != null) {
      query.setEf(config.ef());
    }
    ScanOptions.Builder options = new ScanOptions.Builder().nearest(query.build()).columns(columns);
    if (spec.filter() != null) {
      options.filter(spec.filter()).prefilter(config.prefilter());
    }
    return options.build();
  }

  /** Logs how the column is searched; an index for another metric is searched exactly by Lance. */
  private void describeIndex(Dataset dataset) {
    Optional<VectorIndex> index = VectorIndex.on(dataset, spec.column().name());
    if (index.isEmpty()) {
      LOG.info(
          "Searching column '{}' of {} (version {}) exactly: it has no vector index",
          spec.column().name(),
          spec.table().uri(),
          dataset.version());
    } else if (index.get().metric().filter(spec.metric()::equals).isEmpty()) {
      LOG.warn(
          "Column '{}' of {} (version {}) has the {} index '{}' built for {}; the search uses {},"
              + " so Lance searches the column exactly (slow)",
          spec.column().name(),
          spec.table().uri(),
          dataset.version(),
          index.get().type(),
          index.get().name(),
          index.get().lanceMetric(),
          spec.metric());
    } else {
      LOG.info(
          "Searching column '{}' of {} (version {}) with its {} index '{}' ({})",
          spec.column().name(),
          spec.table().uri(),
          dataset.version(),
          index.get().type(),
          index.get().name(),
          spec.metric());
    }
  }

  @Override
  public void close() {
    table.close();
  }
}
