package dev.flinklance.compactor.testing;

import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.TestFragments;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import org.apache.arrow.c.ArrowArrayStream;
import org.apache.arrow.c.Data;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.lance.CommitBuilder;
import org.lance.Dataset;
import org.lance.Fragment;
import org.lance.FragmentMetadata;
import org.lance.ReadOptions;
import org.lance.Transaction;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.ScanOptions;
import org.lance.merge.MergeInsertParams;
import org.lance.operation.Append;

/**
 * Stable-row-id tables of the {@link TestFragments} schema, changed the ways that make row ids
 * scatter (deletes, merge-insert updates), and their lineage read back through plain Lance.
 */
public final class LineageTables {
  /** Lineage columns Lance computes for every row of a stable-row-id table. */
  public static final List<String> LINEAGE =
      List.of("_rowid", "_row_created_at_version", "_row_last_updated_at_version");

  /** Storage options of tables on object stores, by URI (local tables need none). */
  private static final Map<String, Map<String, String>> STORAGE = new ConcurrentHashMap<>();

  private LineageTables() {}

  /** Reaches {@code uri} with these Lance storage options from now on. */
  public static void useStorage(String uri, Map<String, String> storageOptions) {
    STORAGE.put(uri, Map.copyOf(storageOptions));
  }

  private static Map<String, String> storage(String uri) {
    return STORAGE.getOrDefault(uri, Map.of());
  }

  private static Dataset open(String uri, BufferAllocator allocator) {
    return Dataset.open()
        .allocator(allocator)
        .uri(uri)
        .readOptions(new ReadOptions.Builder().setStorageOptions(storage(uri)).build())
        .build();
  }

  public static void createStable(String uri) {
    try (BufferAllocator allocator = new RootAllocator();
        Dataset ignored =
            Dataset.write()
                .allocator(allocator)
                .uri(uri)
                .schema(TestFragments.SCHEMA)
                .storageOptions(storage(uri))
                .mode(org.lance.WriteParams.WriteMode.CREATE)
                .enableStableRowIds(true)
                .execute()) {
      // version 1
    }
  }

  /** Appends ids {@code from..from+count-1} as {@code fragments} fragments, one commit each. */
  public static void append(String uri, long from, long count, int fragments) {
    long per = count / fragments;
    for (int f = 0; f < fragments; f++) {
      long start = from + f * per;
      long end = f == fragments - 1 ? from + count : start + per;
      long[] ids = new long[(int) (end - start)];
      for (int i = 0; i < ids.length; i++) {
        ids[i] = start + i;
      }
      appendFragment(uri, ids);
    }
  }

  /** Writes one fragment of these ids and commits it as an Append. */
  public static void appendFragment(String uri, long... ids) {
    try (BufferAllocator allocator = new RootAllocator();
        VectorSchemaRoot root = VectorSchemaRoot.create(TestFragments.SCHEMA, allocator)) {
      fill(root, ids, "name-");
      List<FragmentMetadata> fragments =
          Fragment.write()
              .datasetUri(uri)
              .allocator(allocator)
              .storageOptions(storage(uri))
              .data(root)
              .execute();
      try (Dataset dataset = open(uri, allocator);
          Transaction append =
              new Transaction.Builder()
                  .readVersion(dataset.version())
                  .operation(Append.builder().fragments(fragments).build())
                  .build();
          Dataset ignored = new CommitBuilder(dataset).execute(append)) {
        // committed
      }
    }
  }

  private static void fill(VectorSchemaRoot root, long[] ids, String namePrefix) {
    root.allocateNew();
    BigIntVector idVector = (BigIntVector) root.getVector("id");
    VarCharVector names = (VarCharVector) root.getVector("name");
    for (int i = 0; i < ids.length; i++) {
      idVector.setSafe(i, ids[i]);
      names.setSafe(i, (namePrefix + ids[i]).getBytes());
    }
    root.setRowCount(ids.length);
  }

  /** Rewrites the named rows with merge-insert (new name "updated-<id>"): their row ids stay. */
  public static void update(String uri, List<Long> ids) {
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = open(uri, allocator);
        VectorSchemaRoot root = VectorSchemaRoot.create(TestFragments.SCHEMA, allocator)) {
      fill(root, ids.stream().mapToLong(Long::longValue).toArray(), "updated-");
      update(dataset, root, allocator);
    }
  }

  /** Lance's merge-insert on {@code id}: the rows of {@code root} replace those with their ids. */
  static void update(Dataset dataset, VectorSchemaRoot root, BufferAllocator allocator) {
    try (ArrowReader reader = reader(root, allocator);
        ArrowArrayStream stream = ArrowArrayStream.allocateNew(allocator)) {
      Data.exportArrayStream(allocator, reader, stream);
      dataset
          .mergeInsert(
              new MergeInsertParams(List.of("id"))
                  .withMatchedUpdateAll()
                  .withNotMatched(MergeInsertParams.WhenNotMatched.DoNothing),
              stream)
          .dataset()
          .close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static ArrowReader reader(VectorSchemaRoot root, BufferAllocator allocator)
      throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ArrowStreamWriter writer = new ArrowStreamWriter(root, null, bytes)) {
      writer.start();
      writer.writeBatch();
      writer.end();
    }
    return new ArrowStreamReader(new ByteArrayInputStream(bytes.toByteArray()), allocator);
  }

  public static void delete(String uri, String predicate) {
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = open(uri, allocator)) {
      dataset.delete(predicate);
    }
  }

  /** Every row: row id -> [id, name, created-at version, last-updated-at version]. */
  public static Map<Long, List<Object>> rowsByRowId(String uri) {
    return rowsByRowId(uri, null);
  }

  /** {@link #rowsByRowId(String)} of an older version. */
  public static Map<Long, List<Object>> rowsByRowIdAt(String uri, long version) {
    return rowsByRowId(uri, null, version);
  }

  public static Map<Long, List<Object>> rowsByRowId(String uri, String filter) {
    return rowsByRowId(uri, filter, -1);
  }

  private static Map<Long, List<Object>> rowsByRowId(String uri, String filter, long version) {
    Map<Long, List<Object>> rows = new HashMap<>();
    try (BufferAllocator allocator = new RootAllocator();
        Dataset latest = open(uri, allocator);
        Dataset dataset =
            version < 0
                ? latest.checkoutVersion(latest.version())
                : latest.checkoutVersion(version)) {
      ScanOptions.Builder options =
          new ScanOptions.Builder()
              .columns(
                  List.of("id", "name", "_row_created_at_version", "_row_last_updated_at_version"))
              .withRowId(true);
      if (filter != null) {
        options.filter(filter);
      }
      try (LanceScanner scanner = dataset.newScan(options.build());
          ArrowReader reader = scanner.scanBatches()) {
        while (reader.loadNextBatch()) {
          VectorSchemaRoot root = reader.getVectorSchemaRoot();
          for (int i = 0; i < root.getRowCount(); i++) {
            List<Object> row = new ArrayList<>();
            for (String column :
                List.of("id", "name", "_row_created_at_version", "_row_last_updated_at_version")) {
              FieldVector vector = root.getVector(column);
              Object value = vector.getObject(i);
              row.add(value == null ? null : value.toString());
            }
            Object rowId = root.getVector("_rowid").getObject(i);
            rows.put(((Number) rowId).longValue(), row);
          }
        }
      }
    } catch (Exception e) { // the scanner's close throws Exception
      throw new IllegalStateException("cannot scan " + uri, e);
    }
    return rows;
  }

  /** Ids of the rows with these row ids, taken by row id (Lance's takeRows). */
  public static List<Long> takeIds(String uri, List<Long> rowIds) {
    List<Long> ids = new ArrayList<>();
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = open(uri, allocator);
        ArrowReader reader = dataset.takeRows(rowIds, List.of("id"))) {
      while (reader.loadNextBatch()) {
        BigIntVector vector = (BigIntVector) reader.getVectorSchemaRoot().getVector("id");
        for (int i = 0; i < vector.getValueCount(); i++) {
          ids.add(vector.get(i));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return ids;
  }

  /** Size of the manifest of the table's latest version. */
  public static long manifestBytes(String uri) {
    long version = LanceTestTables.latestVersion(uri);
    Path versions = Path.of(uri).resolve("_versions");
    // Lance names manifests "<version>.manifest" or, with V2 paths, by u64::MAX - version.
    Path v1 = versions.resolve(version + ".manifest");
    Path v2 =
        versions.resolve(
            String.format(
                "%020d.manifest",
                new java.math.BigInteger("18446744073709551615")
                    .subtract(java.math.BigInteger.valueOf(version))));
    try {
      return Files.size(Files.exists(v2) ? v2 : v1);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Side files at the table root. */
  public static List<String> sideFiles(String uri) {
    try (Stream<Path> files = Files.list(Path.of(uri))) {
      return files
          .map(p -> p.getFileName().toString())
          .filter(name -> name.startsWith("_rowids-"))
          .sorted()
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public static void setConfig(String uri, Map<String, String> config) {
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = open(uri, allocator)) {
      dataset.updateConfig(config);
    }
  }
}
