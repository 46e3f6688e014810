package dev.flinklance.table.source.enumerator;

import dev.flinklance.dataset.LanceDataset;
import dev.flinklance.table.source.LanceScan;
import dev.flinklance.table.source.TableVersions;
import dev.flinklance.table.source.split.LanceSplit;
import java.util.Comparator;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.annotation.Internal;
import org.lance.Dataset;
import org.lance.Fragment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Pins the version a scan reads and makes one split per fragment of it. */
@Internal
public final class SplitPlanner {
  private static final Logger LOG = LoggerFactory.getLogger(SplitPlanner.class);

  private SplitPlanner() {}

  public static List<LanceSplit> plan(LanceScan scan) {
    LanceDataset table = scan.dataset();
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = TableVersions.open(table, scan.version(), scan.tag(), allocator)) {
      long version = dataset.version();
      List<LanceSplit> splits =
          dataset.getFragments().stream()
              .map(Fragment::getId)
              .sorted(Comparator.naturalOrder())
              .map(id -> LanceSplit.of(id, version))
              .toList();
      LOG.info("Reading {} at version {}: {} fragments", table, version, splits.size());
      return splits;
    }
  }
}
