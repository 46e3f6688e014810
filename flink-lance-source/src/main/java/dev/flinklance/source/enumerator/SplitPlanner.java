package dev.flinklance.source.enumerator;

import dev.flinklance.access.OpenTable;
import dev.flinklance.access.TableRef;
import dev.flinklance.access.VersionMark;
import dev.flinklance.arrow.read.LanceReadSchema;
import dev.flinklance.arrow.read.LostColumns;
import dev.flinklance.arrow.read.ReadableAs;
import dev.flinklance.errors.LanceCalls;
import dev.flinklance.errors.PermanentDatasetException;
import dev.flinklance.source.LanceScan;
import dev.flinklance.source.OnSchemaChange;
import dev.flinklance.source.TableVersions;
import dev.flinklance.source.split.LanceSplit;
import dev.flinklance.source.split.SplitKind;
import java.util.Comparator;
import java.util.List;
import java.util.function.Supplier;
import org.apache.flink.annotation.Internal;
import org.apache.flink.table.types.logical.LogicalType;
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
    TableRef table = scan.dataset();
    try (OpenTable read = OpenTable.at(table, scan.version(), scan.tag())) {
      Dataset dataset = read.dataset();
      long version = dataset.version();
      checkColumns(scan, dataset, version, () -> TableVersions.readSchema(table, null, null));
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
   * The job was planned with the table's schema of then. The version it reads may be older than
   * columns another client added since (Lance's {@code addColumns}): those read as NULL there, the
   * table as it was, unless declared NOT NULL or pairing a changelog's updates. A column the
   * table's latest version lacks too was dropped, or the table replaced: every reader would fail on
   * it, after every restart.
   *
   * @param latest the schema of the table's latest version, asked for only if the version lacks a
   *     column
   */
  static void checkColumns(
      LanceScan scan, Dataset dataset, long version, Supplier<LanceReadSchema> latest) {
    String uri = scan.dataset().uri();
    LanceReadSchema schema =
        LanceCalls.call(
            uri, "cannot read the schema of version " + version, () -> LanceReadSchema.of(dataset));
    List<String> missing =
        scan.watchedColumns().stream().filter(column -> schema.field(column).isEmpty()).toList();
    if (!missing.isEmpty()) {
      checkAddedLater(scan, version, schema, missing, latest.get());
    }
    RowType read = scan.rowType();
    for (int i = 0; i < read.getFieldCount(); i++) {
      String column = read.getFieldNames().get(i);
      if (missing.contains(column)) {
        continue;
      }
      LogicalType now;
      try {
        now = schema.rowType(List.of(column)).getTypeAt(0);
      } catch (IllegalArgumentException e) { // a type without a Flink type
        throw new PermanentDatasetException(
            uri, "version " + version + " no longer has the columns the job reads", e);
      }
      if (!ReadableAs.readableAs(now, read.getTypeAt(i))) {
        throw new PermanentDatasetException(
            uri,
            String.format(
                "column '%s' is read as %s, but version %d holds %s",
                column, read.getTypeAt(i).asSummaryString(), version, now.asSummaryString()),
            null);
      }
    }
  }

  /**
   * The columns {@code version} lacks were added after it, or dropped (renamed) before it in a
   * streaming read with {@code scan.on-schema-change} = {@code continue}, and can read as NULL
   * there.
   */
  private static void checkAddedLater(
      LanceScan scan,
      long version,
      LanceReadSchema schema,
      List<String> missing,
      LanceReadSchema latest) {
    String uri = scan.dataset().uri();
    for (String column : missing) {
      // a column renamed since the version is no column added later: NULL would be wrong there
      schema
          .lanceSchema()
          .flatMap(
              earlier ->
                  latest
                      .lanceSchema()
                      .flatMap(later -> LostColumns.formerName(earlier, later, column)))
          .ifPresent(
              name -> {
                throw new PermanentDatasetException(
                    uri,
                    String.format(
                        "column '%s' was named '%s' at version %d (it was renamed later): read"
                            + " that version with the column declared as '%s'",
                        column, name, version, name),
                    null);
              });
    }
    boolean continues =
        scan.streaming() != null && scan.streaming().onSchemaChange() == OnSchemaChange.CONTINUE;
    String why = "it was added later";
    try {
      latest.rowType(missing);
    } catch (IllegalArgumentException e) { // not in the latest version either: dropped, replaced
      if (!continues) {
        throw new PermanentDatasetException(
            uri, "version " + version + " no longer has the columns the job reads", e);
      }
      why = "it was dropped or renamed";
    }
    RowType read = scan.rowType();
    for (String column : missing) {
      int index = read.getFieldIndex(column);
      if (index < 0) {
        throw new PermanentDatasetException(
            uri,
            String.format(
                "column '%s' pairs the changelog's updates, but version %d does not have it (%s)",
                column, version, why),
            null);
      }
      if (!read.getTypeAt(index).isNullable()) {
        throw new PermanentDatasetException(
            uri,
            String.format(
                "column '%s' is declared NOT NULL, but version %d does not have it (%s), so it"
                    + " would read as NULL there: read the columns of that version, or declare the"
                    + " column nullable",
                column, version, why),
            null);
      }
    }
  }
}
