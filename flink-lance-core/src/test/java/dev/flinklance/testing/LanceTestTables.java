package dev.flinklance.testing;

import dev.flinklance.commit.CommitStamp;
import dev.flinklance.commit.VersionTransaction;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.lance.Dataset;
import org.lance.Fragment;
import org.lance.ReadOptions;
import org.lance.Transaction;
import org.lance.fragment.DataFile;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.ScanOptions;
import org.lance.schema.LanceField;

/** Reads Lance tables back for assertions, straight through Lance (not through our code). */
public final class LanceTestTables {

  /** One version of a table with the stamp its transaction carries. */
  public record Commit(long version, String operation, Map<String, String> properties) {
    public String commitUser() {
      return properties.get(CommitStamp.COMMIT_USER);
    }

    public Long checkpointId() {
      String id = properties.get(CommitStamp.CHECKPOINT_ID);
      return id == null ? null : Long.parseLong(id);
    }

    /** The sink run that made this commit, or null for commits of other writers. */
    public String run() {
      return properties.get(CommitStamp.RUN);
    }

    public Long runSeq() {
      String seq = properties.get(CommitStamp.RUN_SEQ);
      return seq == null ? null : Long.parseLong(seq);
    }
  }

  /**
   * The operation of a version whose transaction lance-core 7.0.0 cannot read back: a compaction of
   * an indexed table (see {@link VersionTransaction}).
   */
  public static final String UNREADABLE = "(unreadable)";

  private LanceTestTables() {}

  /**
   * Whether a table, or any trace of one being created, is at a local path or {@code file://} URI.
   */
  public static boolean exists(String uri) {
    return Files.isDirectory(dev.flinklance.store.StoragePaths.localPath(uri).resolve("_versions"));
  }

  /**
   * Whether the table at a local path or {@code file://} URI can be opened: a version's manifest is
   * there. Lance creates {@code _versions} before it writes the first manifest into it, so a table
   * being created has the directory for a moment and no version yet (what polling must wait for).
   */
  public static boolean hasVersion(String uri) {
    Path versions = dev.flinklance.store.StoragePaths.localPath(uri).resolve("_versions");
    if (!Files.isDirectory(versions)) {
      return false;
    }
    try (Stream<Path> files = Files.list(versions)) {
      return files.anyMatch(file -> file.getFileName().toString().endsWith(".manifest"));
    } catch (IOException e) {
      return false; // removed while listed: being dropped or recreated
    }
  }

  public static long latestVersion(String uri) {
    return latestVersion(uri, Map.of());
  }

  public static long latestVersion(String uri, Map<String, String> storageOptions) {
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = open(uri, storageOptions, allocator)) {
      return dataset.version();
    }
  }

  /** When {@code version} was committed, in milliseconds since the epoch. */
  public static long commitMillis(String uri, long version) {
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = open(uri, allocator);
        Dataset at = dataset.checkoutVersion(version)) {
      return at.getVersion().getDataTime().toInstant().toEpochMilli();
    }
  }

  public static long countRows(String uri) {
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = open(uri, allocator)) {
      return dataset.countRows();
    }
  }

  /** The table's Lance file format version, as "2.1". */
  public static String fileFormat(String uri) {
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = open(uri, allocator)) {
      return dataset.getLanceFileFormatVersion();
    }
  }

  public static int fragmentCount(String uri) {
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = open(uri, allocator)) {
      return dataset.getFragments().size();
    }
  }

  /** Commits fragments as a plain, unstamped Append (another writer's commit). */
  public static void appendFragments(String uri, List<org.lance.FragmentMetadata> fragments) {
    appendFragments(uri, Map.of(), fragments);
  }

  public static void appendFragments(
      String uri, Map<String, String> storageOptions, List<org.lance.FragmentMetadata> fragments) {
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = open(uri, storageOptions, allocator);
        Transaction append =
            new Transaction.Builder()
                .readVersion(dataset.version())
                .operation(org.lance.operation.Append.builder().fragments(fragments).build())
                .build();
        Dataset ignored = new org.lance.CommitBuilder(dataset).execute(append)) {
      // committed
    }
  }

  /** All values of the given columns, row by row, as Arrow's Java objects. */
  public static List<List<Object>> readColumns(String uri, List<String> columns) {
    return readColumns(uri, Map.of(), columns);
  }

  public static List<List<Object>> readColumns(
      String uri, Map<String, String> storageOptions, List<String> columns) {
    List<List<Object>> rows = new ArrayList<>();
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = open(uri, storageOptions, allocator);
        LanceScanner scanner = dataset.newScan(new ScanOptions.Builder().columns(columns).build());
        ArrowReader reader = scanner.scanBatches()) {
      while (reader.loadNextBatch()) {
        VectorSchemaRoot root = reader.getVectorSchemaRoot();
        for (int i = 0; i < root.getRowCount(); i++) {
          List<Object> row = new ArrayList<>(columns.size());
          for (String column : columns) {
            FieldVector vector = root.getVector(column);
            row.add(vector.getObject(i));
          }
          rows.add(row);
        }
      }
    } catch (Exception e) {
      throw new IllegalStateException("cannot scan " + uri, e);
    }
    return rows;
  }

  /** Values of one BIGINT column. */
  public static List<Long> readLongs(String uri, String column) {
    return readLongs(uri, Map.of(), column);
  }

  public static List<Long> readLongs(
      String uri, Map<String, String> storageOptions, String column) {
    return readColumns(uri, storageOptions, List.of(column)).stream()
        .map(row -> (Long) row.get(0))
        .toList();
  }

  /**
   * Every version of the table that is still there (a cleanup removes older ones), oldest first,
   * with its transaction properties.
   */
  public static List<Commit> commits(String uri) {
    return commits(uri, Map.of());
  }

  public static List<Commit> commits(String uri, Map<String, String> storageOptions) {
    List<Commit> commits = new ArrayList<>();
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = open(uri, storageOptions, allocator)) {
      for (org.lance.Version listed : dataset.listVersions()) {
        long version = listed.getId();
        try (Dataset at = dataset.checkoutVersion(version)) {
          VersionTransaction transaction = VersionTransaction.of(at).orElseThrow();
          commits.add(
              new Commit(
                  version,
                  transaction.readBack() ? transaction.operation() : UNREADABLE,
                  transaction.properties()));
        }
      }
    }
    return commits;
  }

  /** Commits that carry a checkpoint stamp (that is, commits made by a Lance sink). */
  public static List<Commit> sinkCommits(String uri) {
    return sinkCommits(uri, Map.of());
  }

  public static List<Commit> sinkCommits(String uri, Map<String, String> storageOptions) {
    return commits(uri, storageOptions).stream().filter(c -> c.checkpointId() != null).toList();
  }

  /** Waits until the table at a local path has at least {@code commits} sink commits. */
  public static void awaitSinkCommits(String uri, int commits, Duration timeout)
      throws InterruptedException {
    Await.until(
        commits + " sink commits to " + uri,
        timeout,
        () -> hasVersion(uri) && sinkCommits(uri).size() >= commits,
        () -> hasVersion(uri) ? sinkCommits(uri).size() + " sink commits" : "no table");
  }

  /**
   * Lance's own merge-insert of {@code rows} on {@code on}: matched rows updated, others inserted.
   *
   * @return the table at the version the merge-insert committed
   */
  public static Dataset mergeInsert(Dataset dataset, List<String> on, VectorSchemaRoot rows) {
    java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
    try (org.apache.arrow.vector.ipc.ArrowStreamWriter writer =
        new org.apache.arrow.vector.ipc.ArrowStreamWriter(rows, null, bytes)) {
      writer.start();
      writer.writeBatch();
      writer.end();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    BufferAllocator allocator = dataset.allocator();
    try (org.apache.arrow.c.ArrowArrayStream stream =
        org.apache.arrow.c.ArrowArrayStream.allocateNew(allocator)) {
      org.apache.arrow.c.Data.exportArrayStream(
          allocator,
          new org.apache.arrow.vector.ipc.ArrowStreamReader(
              new java.io.ByteArrayInputStream(bytes.toByteArray()), allocator),
          stream);
      return dataset
          .mergeInsert(
              new org.lance.merge.MergeInsertParams(on)
                  .withMatchedUpdateAll()
                  .withNotMatched(org.lance.merge.MergeInsertParams.WhenNotMatched.InsertAll),
              stream)
          .dataset();
    }
  }

  /** Data files under the (local) table that no fragment of the latest version references. */
  public static Set<String> unreferencedDataFiles(String uri) {
    Set<String> referenced = referencedDataFiles(uri, Map.of());
    Set<String> unreferenced = new HashSet<>();
    try (Stream<Path> files = Files.list(Path.of(uri).resolve("data"))) {
      files
          .map(p -> p.getFileName().toString())
          .filter(name -> !referenced.contains(name))
          .forEach(unreferenced::add);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return unreferenced;
  }

  /** Names of the data files (under {@code data/}) the latest version's fragments reference. */
  public static Set<String> referencedDataFiles(String uri, Map<String, String> storageOptions) {
    Set<String> referenced = new HashSet<>();
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = open(uri, storageOptions, allocator)) {
      for (Fragment fragment : dataset.getFragments()) {
        for (DataFile file : fragment.metadata().getFiles()) {
          referenced.add(file.getPath());
        }
      }
    }
    return referenced;
  }

  /**
   * Every field's metadata as Lance keeps it in the table's schema, by dotted path ({@code
   * tags.item}, {@code point.label}); a FixedSizeList is one Lance field without children.
   */
  public static Map<String, Map<String, String>> fieldMetadata(String uri) {
    Map<String, Map<String, String>> metadata = new HashMap<>();
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = open(uri, allocator)) {
      for (LanceField field : dataset.getLanceSchema().fields()) {
        collectMetadata(field, "", metadata);
      }
    }
    return metadata;
  }

  private static void collectMetadata(
      LanceField field, String parent, Map<String, Map<String, String>> metadata) {
    String path = parent + field.getName();
    metadata.put(path, field.getMetadata());
    for (LanceField child : field.getChildren()) {
      collectMetadata(child, path + ".", metadata);
    }
  }

  /** Bytes of each fragment's data files, in fragment order. */
  public static List<Long> fragmentBytes(String uri) {
    List<Long> bytes = new ArrayList<>();
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = open(uri, allocator)) {
      for (Fragment fragment : dataset.getFragments()) {
        long size = 0;
        for (DataFile file : fragment.metadata().getFiles()) {
          size += file.getFileSizeBytes();
        }
        bytes.add(size);
      }
    }
    return bytes;
  }

  private static Dataset open(String uri, BufferAllocator allocator) {
    return open(uri, Map.of(), allocator);
  }

  private static Dataset open(
      String uri, Map<String, String> storageOptions, BufferAllocator allocator) {
    return Dataset.open()
        .allocator(allocator)
        .uri(uri)
        .readOptions(new ReadOptions.Builder().setStorageOptions(storageOptions).build())
        .build();
  }
}
