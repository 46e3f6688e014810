package dev.flinklance.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.lance.Dataset;
import org.lance.Fragment;
import org.lance.FragmentMetadata;
import org.lance.WriteParams;

/** Real, uncommitted Lance fragment files of the {@link TestRows} schema, written with Lance. */
public final class TestFragments {
  public static final Schema SCHEMA =
      new Schema(
          List.of(
              Field.notNullable("id", new ArrowType.Int(64, true)),
              Field.nullable("name", ArrowType.Utf8.INSTANCE)));

  private TestFragments() {}

  public static void createTable(String uri) {
    createTable(uri, SCHEMA);
  }

  /** Creates an empty table (version 1) with Lance's own API. */
  public static void createTable(String uri, Schema schema) {
    createTable(uri, Map.of(), schema);
  }

  public static void createTable(String uri, Map<String, String> storageOptions, Schema schema) {
    try (BufferAllocator allocator = new RootAllocator();
        Dataset ignored =
            Dataset.write()
                .allocator(allocator)
                .uri(uri)
                .storageOptions(storageOptions)
                .schema(schema)
                .mode(WriteParams.WriteMode.CREATE)
                .execute()) {
      // created at version 1
    }
  }

  /**
   * Deletes the local table at {@code uri} and creates a new, empty one there with {@code versions}
   * versions: the same URI and version numbers, another table (a DROP and CREATE by another
   * client).
   */
  public static void recreateTable(String uri, int versions) {
    try {
      TestFiles.deleteRecursively(Path.of(uri));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    createTable(uri);
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = Dataset.open().allocator(allocator).uri(uri).build()) {
      for (int v = 1; v < versions; v++) {
        dataset.updateConfig(Map.of("version", Integer.toString(v)));
      }
    }
  }

  public static List<FragmentMetadata> write(String uri, long... ids) {
    return write(uri, Map.of(), ids);
  }

  public static List<FragmentMetadata> write(
      String uri, Map<String, String> storageOptions, long... ids) {
    return write(uri, storageOptions, "name", ids);
  }

  /** Rows whose names are {@code tag-id}: a later version of the rows {@link #write} writes. */
  public static List<FragmentMetadata> writeTagged(String uri, String tag, long... ids) {
    return write(uri, Map.of(), tag, ids);
  }

  private static List<FragmentMetadata> write(
      String uri, Map<String, String> storageOptions, String tag, long... ids) {
    try (BufferAllocator allocator = new RootAllocator();
        VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator)) {
      root.allocateNew();
      BigIntVector idVector = (BigIntVector) root.getVector("id");
      VarCharVector names = (VarCharVector) root.getVector("name");
      for (int i = 0; i < ids.length; i++) {
        idVector.setSafe(i, ids[i]);
        names.setSafe(i, (tag + "-" + ids[i]).getBytes());
      }
      root.setRowCount(ids.length);
      return Fragment.write()
          .datasetUri(uri)
          .storageOptions(storageOptions)
          .allocator(allocator)
          .data(root)
          .execute();
    }
  }
}
