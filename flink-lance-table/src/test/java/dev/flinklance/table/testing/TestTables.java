package dev.flinklance.table.testing;

import dev.flinklance.arrow.ArrowSchemaConverter;
import dev.flinklance.arrow.write.ArrowBatchWriter;
import dev.flinklance.dataset.LanceDataset;
import dev.flinklance.testing.LanceTestTables;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.lance.Dataset;
import org.lance.Fragment;
import org.lance.FragmentMetadata;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.ScanOptions;

/**
 * Writes test tables without a Flink job: rows through the shared Arrow writer, one fragment per
 * {@code rowsPerFragment} rows, one Lance Append per call (one table version).
 */
public final class TestTables {

  private TestTables() {}

  public static void create(String uri, RowType rowType, Map<String, Integer> vectorColumns) {
    try (BufferAllocator allocator = new RootAllocator()) {
      new LanceDataset(uri, Map.of())
          .createIfAbsent(
              allocator, ArrowSchemaConverter.toArrowSchema(rowType, vectorColumns), false, null)
          .orElseThrow()
          .close();
    }
  }

  /** Appends {@code rows} as fragments of at most {@code rowsPerFragment} rows. */
  public static void append(String uri, RowType rowType, List<RowData> rows, int rowsPerFragment) {
    List<FragmentMetadata> fragments = new ArrayList<>();
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = new LanceDataset(uri, Map.of()).open(allocator)) {
      Schema schema = dataset.getSchema();
      for (int start = 0; start < rows.size(); start += rowsPerFragment) {
        try (ArrowBatchWriter batch = ArrowBatchWriter.create(rowType, schema, allocator)) {
          for (RowData row : rows.subList(start, Math.min(rows.size(), start + rowsPerFragment))) {
            batch.write(row);
          }
          fragments.addAll(
              Fragment.write()
                  .datasetUri(uri)
                  .allocator(allocator)
                  .data(batch.seal())
                  .dataStorageVersion(dataset.getLanceFileFormatVersion())
                  .execute());
        }
      }
    }
    LanceTestTables.appendFragments(uri, fragments);
  }

  /** The values of a BIGINT column at one table version, read with Lance's own scanner. */
  public static List<Long> readLongsAt(String uri, String column, long version) {
    List<Long> values = new ArrayList<>();
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = new LanceDataset(uri, Map.of()).open(allocator, version);
        LanceScanner scanner =
            dataset.newScan(new ScanOptions.Builder().columns(List.of(column)).build());
        ArrowReader reader = scanner.scanBatches()) {
      while (reader.loadNextBatch()) {
        BigIntVector vector = (BigIntVector) reader.getVectorSchemaRoot().getVector(column);
        for (int i = 0; i < vector.getValueCount(); i++) {
          values.add(vector.get(i));
        }
      }
    } catch (Exception e) {
      throw new IllegalStateException("cannot read " + uri + " at version " + version, e);
    }
    return values;
  }

  /** A new table holding {@code rows}. */
  public static void write(String uri, RowType rowType, List<RowData> rows, int rowsPerFragment) {
    create(uri, rowType, Map.of());
    append(uri, rowType, rows, rowsPerFragment);
  }
}
