package dev.flinklance.source;

import dev.flinklance.arrow.read.LanceReadSchema;
import dev.flinklance.dataset.LanceCalls;
import dev.flinklance.dataset.LanceDataset;
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
    return LanceCalls.call(
        table.uri(),
        "cannot read the table's schema",
        () -> {
          try (BufferAllocator allocator = new RootAllocator();
              Dataset dataset = open(table, version, tag, allocator)) {
            return LanceReadSchema.of(dataset);
          }
        });
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
    long tagged =
        LanceCalls.call(
            table.uri(),
            "cannot resolve tag '" + tag + "'",
            () -> {
              try (Dataset latest = table.open(allocator)) {
                return latest.tags().getVersion(tag);
              }
            });
    return table.open(allocator, tagged);
  }
}
