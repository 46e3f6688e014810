package dev.flinklance.source.enumerator;

import dev.flinklance.access.OpenTable;
import dev.flinklance.access.VersionMark;
import dev.flinklance.arrow.read.LanceReadSchema;
import dev.flinklance.arrow.read.LostColumns;
import dev.flinklance.commit.VersionChange;
import dev.flinklance.commit.VersionChanges;
import dev.flinklance.commit.VersionsBy;
import dev.flinklance.errors.LanceCalls;
import dev.flinklance.errors.LanceErrors;
import dev.flinklance.errors.PermanentDatasetException;
import dev.flinklance.errors.TableReplacedException;
import dev.flinklance.source.LanceScan;
import dev.flinklance.source.OnDelete;
import dev.flinklance.source.OnOverwrite;
import dev.flinklance.source.OnSchemaChange;
import dev.flinklance.source.StreamingRead;
import dev.flinklance.source.TableVersions;
import dev.flinklance.source.split.LanceSplit;
import dev.flinklance.source.split.SplitKind;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import org.lance.Dataset;
import org.lance.schema.LanceSchema;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Plans a streaming read: where it starts ({@code scan.startup.mode}), then the splits of each new
 * version, from what the version did to the rows ({@link VersionChanges#between}). Runs on the
 * enumerator's worker thread, one call at a time, each on a table it opens for the call.
 */
final class ChangePlanner {
  private static final Logger LOG = LoggerFactory.getLogger(ChangePlanner.class);

  /** At most this many versions are planned in one call; the enumerator calls again at once. */
  static final int MAX_VERSIONS_PER_CALL = 100;

  /**
   * The splits of versions up to {@code position}'s, which is from now on the version fully
   * planned.
   *
   * @param latest the table's latest version at the time of planning
   */
  record Plan(VersionMark position, List<LanceSplit> splits, long latest) {
    boolean caughtUp() {
      return position.version() >= latest;
    }
  }

  private final LanceScan scan;
  private final StreamingRead streaming;

  ChangePlanner(LanceScan scan) {
    this.scan = scan;
    this.streaming = scan.streaming();
  }

  /** Where the read starts: the table's rows at the latest version, or none. */
  Plan start() {
    try (OpenTable table = OpenTable.latest(scan.dataset())) {
      Dataset latest = table.dataset();
      long latestVersion = latest.version();
      Plan plan =
          switch (streaming.startupMode()) {
            case FULL ->
                new Plan(VersionMark.of(latest), SplitPlanner.snapshot(latest), latestVersion);
            case LATEST -> new Plan(VersionMark.of(latest), List.of(), latestVersion);
            case VERSION ->
                new Plan(markOf(latest, streaming.startupVersion()), List.of(), latestVersion);
            case TIMESTAMP ->
                new Plan(
                    lastCommittedBy(latest, streaming.startupTimestampMillis()),
                    List.of(),
                    latestVersion);
          };
      // the first versions read have the start's schema; a later one is checked when it comes
      checkColumns(plan.position().version(), latest);
      LOG.info(
          "Streaming read of {} starts with {} splits and the changes after version {} ({})",
          scan.dataset(),
          plan.splits().size(),
          plan.position().version(),
          streaming.startupMode());
      return plan;
    }
  }

  private VersionMark markOf(Dataset latest, long version) {
    if (version == 0) {
      return VersionMark.NO_TABLE;
    }
    if (version > latest.version()) {
      throw new PermanentDatasetException(
          scan.dataset().uri(),
          String.format(
              "scan.startup.version %d does not exist: the latest version is %d",
              version, latest.version()),
          null);
    }
    try (Dataset at = latest.checkoutVersion(version)) {
      return VersionMark.of(at);
    } catch (Exception e) { // Lance also throws undeclared IOExceptions from native code
      throw new PermanentDatasetException(
          scan.dataset().uri(),
          "cannot open scan.startup.version " + version + " (cleaned up?)",
          e);
    }
  }

  /**
   * The newest version committed at or before {@code millis}: the changes after it were committed
   * after {@code millis}. Version 0 (the empty table) if the table's first version came later.
   */
  private VersionMark lastCommittedBy(Dataset latest, long millis) {
    VersionsBy found = VersionsBy.committedBy(latest, millis);
    if (found.version() != null) {
      return found.version();
    }
    if (found.oldest() != null && found.oldest().version() > 1) {
      throw new PermanentDatasetException(
          scan.dataset().uri(),
          String.format(
              "scan.startup.timestamp-millis %d is older than the oldest version still kept"
                  + " (%d, committed at %s): the changes before it were cleaned up",
              millis,
              found.oldest().version(),
              Instant.EPOCH.plusNanos(found.oldest().epochNanos())),
          null);
    }
    return VersionMark.NO_TABLE;
  }

  /**
   * The splits of the versions after {@code position}, up to {@link #MAX_VERSIONS_PER_CALL}; up to
   * the version before the first one that fails (to plan or by a policy), which then fails the next
   * call.
   */
  Plan next(VersionMark position) {
    try (OpenTable table = OpenTable.latest(scan.dataset())) {
      Dataset latest = table.dataset();
      checkSameTable(position, latest);
      long latestVersion = latest.version();
      long upTo = Math.min(latestVersion, position.version() + MAX_VERSIONS_PER_CALL);
      if (upTo <= position.version()) {
        return new Plan(position, List.of(), latestVersion);
      }
      Planned planned = new Planned(position);
      try {
        VersionChanges.forEach(
            latest,
            position.version(),
            upTo,
            scan.watchedColumns(),
            change -> planned.add(change, splitsOf(change, latest)));
      } catch (RuntimeException e) {
        if (planned.position == position) {
          throw cleanedUp(e, position);
        }
        // The versions before keep their splits, read before anything fails; the next call,
        // made at once (the plan is not caught up), meets this version first.
        LOG.info(
            "Planned the versions of {} up to {}; version {} could not be planned: {}",
            scan.dataset(),
            planned.position.version(),
            planned.position.version() + 1,
            e.getMessage());
      }
      LOG.debug(
          "Planned versions {}..{} of {}: {} splits",
          position.version() + 1,
          planned.position.version(),
          scan.dataset(),
          planned.splits.size());
      return new Plan(planned.position, planned.splits, latestVersion);
    }
  }

  /** A version the read needs that is gone fails the read saying what keeps them. */
  private RuntimeException cleanedUp(RuntimeException e, VersionMark position) {
    if (!(e instanceof PermanentDatasetException)
        || e.getCause() == null
        || !LanceErrors.isNotFound(e.getCause())) {
      return e;
    }
    return new PermanentDatasetException(
        scan.dataset().uri(),
        String.format(
            "the streaming read needs version %d and every later one, and one of them was"
                + " cleaned up; %s",
            position.version(), TableVersions.cleanupHint(streaming)),
        e);
  }

  /** The versions planned so far in one call, and their splits. */
  private static final class Planned {
    private final List<LanceSplit> splits = new ArrayList<>();
    private VersionMark position;

    Planned(VersionMark position) {
      this.position = position;
    }

    void add(VersionChange change, List<LanceSplit> splitsOfChange) {
      splits.addAll(splitsOfChange);
      position = new VersionMark(change.version(), change.epochNanos());
    }
  }

  /** A table dropped and created again at the URI has other versions: no change of it is ours. */
  private void checkSameTable(VersionMark position, Dataset latest) {
    try {
      position.verify(latest);
    } catch (TableReplacedException e) {
      throw TableVersions.replacedWhileRead(scan.dataset(), e);
    }
  }

  private List<LanceSplit> splitsOf(VersionChange change, Dataset latest) {
    boolean emitted =
        switch (change.kind()) {
          case REWRITE -> false;
          case REPLACE -> onReplace(change);
          case ROWS -> change.changesRows() && (scan.changelog() || onRemoval(change));
        };
    if (change.schemaChanged()) { // also when skipped: the versions after it have its schema
      onSchemaChange(change, latest);
      checkColumns(change.version(), latest);
    }
    if (!emitted) {
      if (change.changesRows()) {
        LOG.info(
            "Version {} of {} ({}) emits nothing",
            change.version(),
            scan.dataset(),
            change.operation());
      }
      return List.of();
    }
    long commitMillis = change.epochNanos() / 1_000_000;
    List<LanceSplit> splits = new ArrayList<>();
    for (int id : change.removedFragments()) {
      splits.add(LanceSplit.of(SplitKind.REMOVED, id, change.version(), commitMillis));
    }
    for (int id : change.deletedRowsFragments()) {
      splits.add(LanceSplit.of(SplitKind.DELETED_ROWS, id, change.version(), commitMillis));
    }
    for (int id : change.addedFragments()) {
      splits.add(LanceSplit.of(SplitKind.ADDED, id, change.version(), commitMillis));
    }
    return splits;
  }

  /** The columns the read needs are readable at {@code version} (none: version 0, no table). */
  private void checkColumns(long version, Dataset latest) {
    if (version == 0) {
      return;
    }
    Supplier<LanceReadSchema> latestSchema =
        () ->
            LanceCalls.call(
                scan.dataset().uri(),
                "cannot read the schema of version " + latest.version(),
                () -> LanceReadSchema.of(latest));
    if (version == latest.version()) {
      SplitPlanner.checkColumns(scan, latest, version, latestSchema);
      return;
    }
    LanceCalls.run(
        scan.dataset().uri(),
        "cannot read version " + version,
        () -> {
          try (Dataset at = latest.checkoutVersion(version)) {
            SplitPlanner.checkColumns(scan, at, version, latestSchema);
          }
        });
  }

  /**
   * A version that took a column the read needs away (dropped, renamed: told by field ids) fails
   * the read, unless {@code scan.on-schema-change} = {@code continue}: the column is then NULL from
   * this version on, as {@link #checkColumns} checks it may be.
   */
  private void onSchemaChange(VersionChange change, Dataset latest) {
    if (streaming.onSchemaChange() == OnSchemaChange.CONTINUE || change.version() == 1) {
      return;
    }
    long version = change.version();
    Optional<String> lost =
        LanceCalls.call(
            scan.dataset().uri(),
            "cannot read the schemas of versions " + (version - 1) + " and " + version,
            () -> {
              try (Dataset before = latest.checkoutVersion(version - 1);
                  Dataset after = latest.checkoutVersion(version)) {
                Optional<LanceSchema> earlier = LanceReadSchema.lanceFieldsOf(before);
                Optional<LanceSchema> later = LanceReadSchema.lanceFieldsOf(after);
                return earlier.isPresent() && later.isPresent()
                    ? LostColumns.between(earlier.get(), later.get(), scan.watchedColumns())
                    : Optional.<String>empty();
              }
            });
    lost.ifPresent(
        what -> {
          throw new PermanentDatasetException(
              scan.dataset().uri(),
              String.format(
                  "version %d (%s) %s, which this streaming read reads; with"
                      + " 'scan.on-schema-change' = 'fail' it stops here, having emitted every"
                      + " change up to version %d. To go on, restore the job from its last"
                      + " checkpoint with 'scan.on-schema-change' = 'continue' (the column reads"
                      + " as NULL from version %d on), or start a job that reads the table's"
                      + " columns now",
                  version, change.operation(), what, version - 1, version),
              null);
        });
  }

  /** Whether a version that replaced the table's rows is emitted (as its full changelog). */
  private boolean onReplace(VersionChange change) {
    if (streaming.onOverwrite() == OnOverwrite.FAIL) {
      throw new PermanentDatasetException(
          scan.dataset().uri(),
          String.format(
              "version %d (%s) replaced the table's rows; with 'scan.on-overwrite' = 'fail' the"
                  + " streaming read stops here, having emitted every change up to version %d and"
                  + " none of version %d. To go on, restore the job from its last checkpoint with"
                  + " 'scan.on-overwrite' = 'skip' (or 'changelog' with 'scan.changelog' ="
                  + " 'true')",
              change.version(), change.operation(), change.version() - 1, change.version()),
          null);
    }
    return streaming.onOverwrite() == OnOverwrite.CHANGELOG;
  }

  /**
   * Whether an append-only read emits a version: one that only adds rows is, one that removes rows
   * fails or is skipped ({@code scan.on-delete}).
   */
  private boolean onRemoval(VersionChange change) {
    if (!change.removesRows()) {
      return true;
    }
    if (streaming.onDelete() == OnDelete.FAIL) {
      throw new PermanentDatasetException(
          scan.dataset().uri(),
          String.format(
              "version %d (%s) deletes or updates rows, which an append-only streaming read"
                  + " ('scan.changelog' = 'false') cannot emit; with 'scan.on-delete' = 'fail' it"
                  + " stops here, having emitted every change up to version %d. To go on, restore"
                  + " the job from its last checkpoint with 'scan.on-delete' = 'skip', or read the"
                  + " changelog ('scan.changelog' = 'true')",
              change.version(), change.operation(), change.version() - 1),
          null);
    }
    return false;
  }
}
