package dev.flinklance.testing;

import dev.flinklance.access.TableRef;
import dev.flinklance.arrow.ArrowSchemaConverter;
import dev.flinklance.arrow.write.ArrowBatchWriter;
import dev.flinklance.key.PrimaryKey;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.arrow.c.ArrowArrayStream;
import org.apache.arrow.c.Data;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.lance.Dataset;
import org.lance.Fragment;
import org.lance.FragmentMetadata;
import org.lance.WriteParams;
import org.lance.compaction.CompactionOptions;
import org.lance.index.IndexParams;
import org.lance.index.IndexType;
import org.lance.index.scalar.BTreeIndexParams;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.ScanOptions;
import org.lance.memwal.InitializeMemWalParams;
import org.lance.merge.MergeInsertParams;

/**
 * Writes test tables without a Flink job: rows through the shared Arrow writer, one fragment per
 * {@code rowsPerFragment} rows, one Lance Append per call (one table version); and Lance's own
 * delete, merge-insert, compaction, scalar index and overwrite, one version each.
 */
public final class TestTables {

  private TestTables() {}

  public static void create(String uri, RowType rowType, Map<String, Integer> vectorColumns) {
    create(uri, rowType, vectorColumns, false);
  }

  public static void create(
      String uri, RowType rowType, Map<String, Integer> vectorColumns, boolean stableRowIds) {
    try (BufferAllocator allocator = new RootAllocator()) {
      new TableRef(uri, Map.of())
          .createIfAbsent(
              allocator,
              ArrowSchemaConverter.toArrowSchema(rowType, vectorColumns),
              stableRowIds,
              null)
          .orElseThrow(() -> new IllegalStateException("A table at " + uri + " already exists"))
          .close();
    }
  }

  /** Creates a table whose schema declares {@code key} as its primary key, as Lance does. */
  public static void createWithKey(String uri, RowType rowType, String key) {
    Schema schema =
        PrimaryKey.of(rowType, List.of(key), uri)
            .declareIn(ArrowSchemaConverter.toArrowSchema(rowType, Map.of()));
    try (BufferAllocator allocator = new RootAllocator()) {
      new TableRef(uri, Map.of())
          .createIfAbsent(allocator, schema, false, null)
          .orElseThrow(() -> new IllegalStateException("A table at " + uri + " already exists"))
          .close();
    }
  }

  /**
   * Sets up Lance's MemWAL on a table that declares a primary key, unsharded, as another client
   * would (one version).
   */
  public static void initializeMemWal(String uri) {
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = new TableRef(uri, Map.of()).open(allocator)) {
      dataset.initializeMemWal(new InitializeMemWalParams().withUnsharded());
    }
  }

  /** Lance's own delete (one Delete version). */
  public static void delete(String uri, String predicate) {
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = new TableRef(uri, Map.of()).open(allocator)) {
      dataset.delete(predicate);
    }
  }

  /**
   * Lance's own merge-insert on {@code key} (one Update version): rows whose key exists replace the
   * old ones, the others are inserted.
   */
  public static void upsert(String uri, RowType rowType, String key, List<RowData> rows) {
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = new TableRef(uri, Map.of()).open(allocator);
        ArrowReader reader = readerOf(rowType, dataset.getSchema(), rows, allocator);
        ArrowArrayStream stream = ArrowArrayStream.allocateNew(allocator)) {
      Data.exportArrayStream(allocator, reader, stream);
      dataset
          .mergeInsert(
              new MergeInsertParams(List.of(key))
                  .withMatchedUpdateAll()
                  .withNotMatched(MergeInsertParams.WhenNotMatched.InsertAll),
              stream)
          .dataset()
          .close();
    } catch (Exception e) {
      throw new IllegalStateException("cannot merge-insert into " + uri, e);
    }
  }

  /** Lance's own compaction into fragments of up to a million rows (Rewrite versions). */
  public static void compact(String uri) {
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = new TableRef(uri, Map.of()).open(allocator)) {
      dataset.compact(CompactionOptions.builder().withTargetRowsPerFragment(1 << 20).build());
    }
  }

  /**
   * A BTree index on {@code column} (one CreateIndex version): lance-core 7.0.0 cannot read back
   * the transaction of a later compaction of the table.
   */
  public static void createScalarIndex(String uri, String column) {
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = new TableRef(uri, Map.of()).open(allocator)) {
      dataset.createIndex(
          List.of(column),
          IndexType.BTREE,
          Optional.of(column + "_idx"),
          IndexParams.builder().setScalarIndexParams(BTreeIndexParams.builder().build()).build(),
          false);
    }
  }

  /** Lance's own overwrite of the table's rows with {@code rows} (one Overwrite version). */
  public static void overwrite(String uri, RowType rowType, List<RowData> rows) {
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = new TableRef(uri, Map.of()).open(allocator);
        ArrowReader reader = readerOf(rowType, dataset.getSchema(), rows, allocator);
        Dataset ignored =
            Dataset.write()
                .allocator(allocator)
                .uri(uri)
                .reader(reader)
                .mode(WriteParams.WriteMode.OVERWRITE)
                .execute()) {
      // overwritten
    } catch (Exception e) {
      throw new IllegalStateException("cannot overwrite " + uri, e);
    }
  }

  /** {@code rows} as an Arrow IPC stream in the table's layout. */
  private static ArrowReader readerOf(
      RowType rowType, Schema schema, List<RowData> rows, BufferAllocator allocator)
      throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ArrowBatchWriter batch = ArrowBatchWriter.create(rowType, schema, allocator)) {
      rows.forEach(batch::write);
      VectorSchemaRoot root = batch.seal();
      try (ArrowStreamWriter writer = new ArrowStreamWriter(root, null, bytes)) {
        writer.start();
        writer.writeBatch();
        writer.end();
      }
    }
    return new ArrowStreamReader(new ByteArrayInputStream(bytes.toByteArray()), allocator);
  }

  /** Appends {@code rows} as fragments of at most {@code rowsPerFragment} rows. */
  public static void append(String uri, RowType rowType, List<RowData> rows, int rowsPerFragment) {
    List<FragmentMetadata> fragments = new ArrayList<>();
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = new TableRef(uri, Map.of()).open(allocator)) {
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
        Dataset dataset = new TableRef(uri, Map.of()).open(allocator, version);
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
