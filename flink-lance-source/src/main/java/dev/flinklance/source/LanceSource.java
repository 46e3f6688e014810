package dev.flinklance.source;

import dev.flinklance.source.enumerator.LanceEnumeratorState;
import dev.flinklance.source.enumerator.LanceEnumeratorStateSerializer;
import dev.flinklance.source.enumerator.LanceSplitEnumerator;
import dev.flinklance.source.enumerator.SplitPlanner;
import dev.flinklance.source.reader.LanceSourceReader;
import dev.flinklance.source.split.LanceSplit;
import dev.flinklance.source.split.LanceSplitSerializer;
import org.apache.flink.annotation.Internal;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.RowType;

/**
 * Parallel Flink source reading a Lance table as {@link RowData}: one version (bounded), or the
 * table and then every version committed after it (streaming), as appended rows or as a changelog.
 *
 * <pre>{@code
 * LanceSource source = LanceSource.builder()
 *     .path("s3://bucket/docs.lance")
 *     .storageOption("aws_region", "eu-west-1")
 *     .columns("id", "text")
 *     .filter("id > 10")
 *     .build();
 * env.fromSource(source, WatermarkStrategy.noWatermarks(), "docs");
 *
 * LanceSource changes = LanceSource.builder()
 *     .path("s3://bucket/docs.lance")
 *     .streaming()
 *     .startFromLatest()
 *     .changelog(true)
 *     .build();
 * env.fromSource(changes, WatermarkStrategy.noWatermarks(), "docs changes").setParallelism(1);
 * }</pre>
 *
 * A bounded read pins its version when the job starts (latest, or {@code scan.version} / {@code
 * scan.tag}); each fragment is one split, handed to readers on request. A streaming read makes
 * splits of each new version's added fragments, removed fragments and deleted rows, and hands a
 * version's splits out only after the earlier versions' have been read. Readers checkpoint how many
 * rows of a split they emitted, so a restore neither repeats nor skips a row.
 */
@PublicEvolving
public final class LanceSource
    implements Source<RowData, LanceSplit, LanceEnumeratorState>, ResultTypeQueryable<RowData> {
  private static final long serialVersionUID = 1L;

  private final LanceScan scan;

  LanceSource(LanceScan scan) {
    this.scan = scan;
  }

  public static LanceSourceBuilder builder() {
    return new LanceSourceBuilder();
  }

  /** A source for a scan resolved elsewhere (the SQL connector plans its own). */
  @Internal
  public static LanceSource of(LanceScan scan) {
    return new LanceSource(scan);
  }

  /** The type of the produced rows: the selected columns, in order. */
  public RowType rowType() {
    return scan.rowType();
  }

  LanceScan scan() {
    return scan;
  }

  @Override
  public Boundedness getBoundedness() {
    return scan.streaming() == null ? Boundedness.BOUNDED : Boundedness.CONTINUOUS_UNBOUNDED;
  }

  @Internal
  @Override
  public SplitEnumerator<LanceSplit, LanceEnumeratorState> createEnumerator(
      SplitEnumeratorContext<LanceSplit> context) {
    return scan.streaming() == null
        ? LanceSplitEnumerator.bounded(context, scan, SplitPlanner.plan(scan))
        : LanceSplitEnumerator.streaming(context, scan);
  }

  @Internal
  @Override
  public SplitEnumerator<LanceSplit, LanceEnumeratorState> restoreEnumerator(
      SplitEnumeratorContext<LanceSplit> context, LanceEnumeratorState state) {
    return LanceSplitEnumerator.restore(context, scan, state);
  }

  @Internal
  @Override
  public SimpleVersionedSerializer<LanceSplit> getSplitSerializer() {
    return LanceSplitSerializer.INSTANCE;
  }

  @Internal
  @Override
  public SimpleVersionedSerializer<LanceEnumeratorState> getEnumeratorCheckpointSerializer() {
    return new LanceEnumeratorStateSerializer();
  }

  @Internal
  @Override
  public SourceReader<RowData, LanceSplit> createReader(SourceReaderContext context) {
    return new LanceSourceReader(scan, context.getConfiguration(), context);
  }

  @Override
  public TypeInformation<RowData> getProducedType() {
    return InternalTypeInfo.of(scan.rowType());
  }
}
