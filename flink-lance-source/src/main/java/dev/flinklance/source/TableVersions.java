package dev.flinklance.source;

import dev.flinklance.arrow.read.LanceReadSchema;
import dev.flinklance.dataset.LanceDataset;
import dev.flinklance.dataset.LanceDatasetException;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.annotation.Internal;
import org.lance.Dataset;

/** Opens the version a scan reads: a given version, a tag's version, or the latest. */
@Internal
public final class TableVersions {

  private TableVersions() {}

  /** The schema of the version a scan reads, as the scan produces it. */
  public static LanceReadSchema readSchema(LanceDataset table, Long version, String tag) {
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = open(table, version, tag, allocator)) {
      return LanceReadSchema.of(dataset);
    } catch (LanceDatasetException e) {
      throw e;
    } catch (Exception e) { // Lance also throws undeclared IOExceptions from native code
      throw LanceDatasetException.wrap(table.uri(), "cannot read the table's schema", e);
    }
  }

  /**
   * @param version the version to open, or null
   * @param tag the tag whose version to open (when {@code version} is null), or null for latest
   */
  public static Dataset open(
      LanceDataset table, Long version, String tag, BufferAllocator allocator) {
    if (version != null) {
      return table.open(allocator, version);
    }
    if (tag == null) {
      return table.open(allocator);
    }
    long tagged;
    try (Dataset latest = table.open(allocator)) {
      tagged = latest.tags().getVersion(tag);
    } catch (LanceDatasetException e) {
      throw e;
    } catch (Exception e) { // Lance also throws undeclared IOExceptions from native code
      throw LanceDatasetException.wrap(table.uri(), "cannot resolve tag '" + tag + "'", e);
    }
    return table.open(allocator, tagged);
  }
}
