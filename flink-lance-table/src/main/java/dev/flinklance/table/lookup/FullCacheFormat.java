package dev.flinklance.table.lookup;

import dev.flinklance.access.FollowedTable;
import dev.flinklance.access.OpenTable;
import dev.flinklance.access.VersionMark;
import dev.flinklance.arrow.read.ArrowColumnarBatch;
import dev.flinklance.arrow.read.LanceReadSchema;
import dev.flinklance.errors.LanceDatasetException;
import dev.flinklance.source.LanceScan;
import dev.flinklance.source.LanceSourceOptions;
import java.util.Comparator;
import java.util.List;
import java.util.function.Supplier;
import org.apache.arrow.util.AutoCloseables;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.io.DefaultInputSplitAssigner;
import org.apache.flink.api.common.io.InputFormat;
import org.apache.flink.api.common.io.statistics.BaseStatistics;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.io.InputSplit;
import org.apache.flink.core.io.InputSplitAssigner;
import org.apache.flink.table.data.RowData;
import org.lance.Dataset;
import org.lance.Fragment;
import org.lance.ipc.LanceScanner;
import org.lance.schema.LanceSchema;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a FULL lookup cache loads ({@link FullCacheLoader}): an {@link InputFormat} whose splits are
 * the fragments of one table version (the newest, or the pinned one), each read on one of the
 * loader's threads. Each load checks first that the table still is the one the last load read and
 * still has the joined columns; a failure that may pass is retried {@code lookup.max-retries}
 * times, a fragment resuming after the rows it already gave.
 */
@Internal
public final class FullCacheFormat implements InputFormat<RowData, FullCacheFormat.FragmentSplit> {
  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(FullCacheFormat.class);
  private static final int NO_FRAGMENT = -1;

  private final LookupSpec spec;
  private final LanceScan scan;
  private transient VersionMark lastLoaded;

  /** The schema of {@link #lastLoaded}: tells a column renamed or dropped since by field id. */
  private transient LanceSchema lastSchema;

  private transient OpenTable version; // the version a split reads
  private transient FragmentSplit split;
  private transient LanceScanner scanner;
  private transient ArrowReader reader;
  private transient ArrowColumnarBatch batch;
  private transient int nextRow;
  private transient long rowsGiven;
  private transient boolean done;

  /**
   * One fragment of the version a load reads; a table without fragments loads one empty split.
   *
   * @param epochNanos the commit instant of the version ({@link VersionMark}): the version a split
   *     opens must be that commit, not the same number of another table at the URI
   */
  public record FragmentSplit(int getSplitNumber, long version, long epochNanos, int fragmentId)
      implements InputSplit {
    VersionMark mark() {
      return new VersionMark(version, epochNanos);
    }
  }

  FullCacheFormat(LookupSpec spec) {
    this.spec = spec;
    this.scan =
        new LanceScan(
            spec.table(),
            null,
            null,
            spec.producedType(),
            spec.filter(),
            null,
            LanceSourceOptions.SCAN_BATCH_SIZE.defaultValue(),
            null);
  }

  /** A format to read the splits of this one's loads with, on another thread. */
  FullCacheFormat splitReader() {
    return new FullCacheFormat(spec);
  }

  @Override
  public void configure(Configuration parameters) {}

  @Override
  public BaseStatistics getStatistics(BaseStatistics cachedStatistics) {
    return cachedStatistics;
  }

  /** Called on the format the cache keeps, once per load. */
  @Override
  public FragmentSplit[] createInputSplits(int minNumSplits) {
    return withRetries("open the table to load the lookup cache", this::planLoad);
  }

  private FragmentSplit[] planLoad() {
    try (OpenTable planning = OpenTable.at(spec.table(), spec.version(), spec.tag())) {
      Dataset latest = planning.dataset();
      String uri = spec.table().uri();
      if (lastLoaded != null) {
        FollowedTable.checkSameTable(uri, lastLoaded, latest);
        FollowedTable.checkNoneLost(
            uri, lastSchema, lastLoaded.version(), latest, spec.producedType());
      }
      FollowedTable.checkColumns(uri, latest, spec.producedType());
      List<Integer> fragments =
          latest.getFragments().stream()
              .map(Fragment::getId)
              .sorted(Comparator.naturalOrder())
              .toList();
      LOG.info(
          "Loading the lookup cache of {} from version {} ({} fragments)",
          uri,
          latest.version(),
          fragments.size());
      VersionMark loaded = VersionMark.of(latest);
      lastLoaded = loaded;
      lastSchema = LanceReadSchema.lanceFieldsOf(latest).orElse(null);
      if (fragments.isEmpty()) {
        return new FragmentSplit[] {
          new FragmentSplit(0, loaded.version(), loaded.epochNanos(), NO_FRAGMENT)
        };
      }
      FragmentSplit[] splits = new FragmentSplit[fragments.size()];
      for (int i = 0; i < splits.length; i++) {
        splits[i] = new FragmentSplit(i, loaded.version(), loaded.epochNanos(), fragments.get(i));
      }
      return splits;
    }
  }

  @Override
  public InputSplitAssigner getInputSplitAssigner(FragmentSplit[] inputSplits) {
    return new DefaultInputSplitAssigner(inputSplits);
  }

  /** Called on a copy of the format per split, on the loader thread that reads the split. */
  @Override
  public void open(FragmentSplit split) {
    this.split = split;
    this.rowsGiven = 0;
    this.done = split.fragmentId() == NO_FRAGMENT;
    if (!done) {
      version = withRetries("open the version to load", () -> openPlanned(split));
    }
  }

  /**
   * The split's version, of the table the load planned: a table replaced since has a version of the
   * same number, committed at another instant.
   */
  private OpenTable openPlanned(FragmentSplit split) {
    OpenTable opened = OpenTable.at(spec.table(), split.version(), null);
    try {
      if (!VersionMark.of(opened.dataset()).equals(split.mark())) {
        FollowedTable.checkSameTable(spec.table().uri(), split.mark(), opened.dataset());
      }
      return opened;
    } catch (RuntimeException e) {
      opened.close();
      throw e;
    }
  }

  @Override
  public boolean reachedEnd() {
    while (!done && (batch == null || nextRow >= batch.rowCount())) {
      done = !withRetries("read the fragment", this::loadBatch);
    }
    return done;
  }

  /**
   * The next batch of the fragment. A failed read closes the scan, and the next attempt scans again
   * after the rows given already (Lance applies the offset after the filter, in fragment order).
   */
  private boolean loadBatch() {
    try {
      if (reader == null) {
        scanner =
            version.dataset().getFragment(split.fragmentId()).newScan(scan.scanOptions(rowsGiven));
        reader = scanner.scanBatches();
      }
      if (!reader.loadNextBatch()) {
        return false;
      }
      batch =
          ArrowColumnarBatch.of(
              reader.getVectorSchemaRoot(), spec.producedType().getFieldNames(), reader);
      nextRow = 0;
      return true;
    } catch (Exception e) { // Lance also throws undeclared IOExceptions from native code
      closeScan();
      batch = null;
      throw LanceDatasetException.wrap(
          spec.table().uri(),
          String.format(
              "cannot read fragment %d of version %d into the lookup cache",
              split.fragmentId(), split.version()),
          e);
    }
  }

  /** A view of the next row: the loader copies it before it asks for another. */
  @Override
  public RowData nextRecord(RowData reuse) {
    rowsGiven++;
    return batch.row(nextRow++);
  }

  /** Runs {@code step}, again after a failure that may pass, up to {@code lookup.max-retries}. */
  private <T> T withRetries(String action, Supplier<T> step) {
    return spec.withRetries(
        step,
        (failure, retry, delay) ->
            LOG.warn(
                "Cannot {} of {} (retry {} of {} in {} ms)",
                action,
                spec.table().uri(),
                retry,
                spec.maxRetries(),
                delay.toMillis(),
                failure));
  }

  @Override
  public void close() {
    closeScan();
    if (version != null) {
      version.close();
      version = null;
    }
  }

  private void closeScan() {
    try {
      AutoCloseables.close(reader, scanner);
    } catch (Exception e) {
      LOG.debug("Cannot close a scan of {}", spec.table().uri(), e);
    } finally {
      reader = null;
      scanner = null;
    }
  }
}
