package dev.flinklance.sink.table;

import java.io.Serializable;
import java.util.Map;
import java.util.Optional;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.types.pojo.Schema;
import org.lance.Dataset;
import org.lance.ReadOptions;
import org.lance.WriteParams;

/**
 * Where a Lance table lives and how to reach it: its URI and the storage options that go with
 * every Lance call. All Lance failures leave here with the table's URI in the message.
 */
public final class LanceTable implements Serializable {
  private static final long serialVersionUID = 1L;

  private final String uri;
  private final Map<String, String> storageOptions;

  public LanceTable(String uri, Map<String, String> storageOptions) {
    this.uri = uri;
    this.storageOptions = Map.copyOf(storageOptions);
  }

  public String uri() {
    return uri;
  }

  public Map<String, String> storageOptions() {
    return storageOptions;
  }

  /** Opens the latest version. */
  public Dataset open(BufferAllocator allocator) {
    return openIfExists(allocator)
        .orElseThrow(() -> new LanceTableException(uri, "the table does not exist", null));
  }

  /** Opens the latest version, or returns empty if there is no table at the URI. */
  public Optional<Dataset> openIfExists(BufferAllocator allocator) {
    try {
      return Optional.of(
          Dataset.open()
              .allocator(allocator)
              .uri(uri)
              .readOptions(new ReadOptions.Builder().setStorageOptions(storageOptions).build())
              .build());
    } catch (Exception e) { // Lance also throws undeclared IOExceptions from native code
      if (LanceErrors.isNotFound(e)) {
        return Optional.empty();
      }
      throw new LanceTableException(uri, "cannot open the table", e);
    }
  }

  /**
   * Creates an empty table (version 1). Lance writes the first manifest only if none exists, so
   * of several concurrent creators exactly one wins; the others get an empty result and should
   * open the table instead.
   *
   * @param dataStorageVersion Lance file format version, or null for Lance's default
   */
  public Optional<Dataset> createIfAbsent(
      BufferAllocator allocator, Schema schema, boolean stableRowIds, String dataStorageVersion) {
    try {
      var builder =
          Dataset.write()
              .allocator(allocator)
              .uri(uri)
              .schema(schema)
              .storageOptions(storageOptions)
              .mode(WriteParams.WriteMode.CREATE)
              .enableStableRowIds(stableRowIds);
      if (dataStorageVersion != null) {
        builder.dataStorageVersion(dataStorageVersion);
      }
      return Optional.of(builder.execute());
    } catch (Exception e) {
      if (LanceErrors.isAlreadyExists(e)) {
        return Optional.empty();
      }
      throw new LanceTableException(uri, "cannot create the table", e);
    }
  }

  @Override
  public String toString() {
    return uri;
  }
}
