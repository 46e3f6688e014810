package dev.flinklance.source.enumerator;

import dev.flinklance.arrow.read.LanceReadSchema;
import dev.flinklance.dataset.LanceDataset;
import dev.flinklance.dataset.LanceDatasetException;
import dev.flinklance.dataset.PermanentDatasetException;
import dev.flinklance.dataset.VersionMark;
import dev.flinklance.source.LanceScan;
import dev.flinklance.source.ReadableAs;
import dev.flinklance.source.TableVersions;
import dev.flinklance.source.split.LanceSplit;
import dev.flinklance.source.split.SplitKind;
import java.util.Comparator;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.annotation.Internal;
import org.apache.flink.table.types.logical.RowType;
import org.lance.Dataset;
import org.lance.Fragment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Pins the version a bounded scan reads and makes one split per fragment of it. */
@Internal
public final class SplitPlanner {
  private static final Logger LOG = LoggerFactory.getLogger(SplitPlanner.class);

  private SplitPlanner() {}

  public static List<LanceSplit> plan(LanceScan scan) {
    LanceDataset table = scan.dataset();
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = TableVersions.open(table, scan.version(), scan.tag(), allocator)) {
      long version = dataset.version();
      checkColumns(scan, dataset, version);
      List<LanceSplit> splits = snapshot(dataset);
      LOG.info("Reading {} at version {}: {} fragments", table, version, splits.size());
      return splits;
    }
  }

  /** One split per fragment of the version {@code dataset} is at, in fragment order. */
  static List<LanceSplit> snapshot(Dataset dataset) {
    long version = dataset.version();
    long commitMillis = VersionMark.of(dataset).epochNanos() / 1_000_000;
    return dataset.getFragments().stream()
        .map(Fragment::getId)
        .sorted(Comparator.naturalOrder())
        .map(id -> LanceSplit.of(SplitKind.SNAPSHOT, id, version, commitMillis))
        .toList();
  }

  /**
   * The job was planned with the table's schema of then; the version it reads may be of a table
   * replaced since, which every reader would fail on, after every restart.
   */
  static void checkColumns(LanceScan scan, Dataset dataset, long version) {
    String uri = scan.dataset().uri();
    RowType now;
    try {
      now = LanceReadSchema.of(dataset).rowType(scan.watchedColumns());
    } catch (IllegalArgumentException e) { // a missing column, or one without a Flink type
      throw new PermanentDatasetException(
          uri, "version " + version + " no longer has the columns the job reads", e);
    } catch (Exception e) { // Lance also throws undeclared IOExceptions from native code
      throw LanceDatasetException.wrap(uri, "cannot read the schema of version " + version, e);
    }
    RowType read = scan.rowType();
    for (int i = 0; i < read.getFieldCount(); i++) {
      if (!ReadableAs.readableAs(now.getTypeAt(i), read.getTypeAt(i))) {
        throw new PermanentDatasetException(
            uri,
            String.format(
                "column '%s' is read as %s, but version %d holds %s",
                read.getFieldNames().get(i),
                read.getTypeAt(i).asSummaryString(),
                version,
                now.getTypeAt(i).asSummaryString()),
            null);
      }
    }
  }
}
