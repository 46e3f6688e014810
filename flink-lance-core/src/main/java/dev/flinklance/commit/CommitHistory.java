package dev.flinklance.commit;

import dev.flinklance.access.VersionMark;
import dev.flinklance.commit.VersionChange.Kind;
import dev.flinklance.errors.LanceCalls;
import dev.flinklance.errors.LanceDatasetException;
import dev.flinklance.errors.LanceErrors;
import dev.flinklance.errors.PermanentDatasetException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.annotation.Internal;
import org.lance.Dataset;
import org.lance.Fragment;
import org.lance.FragmentMetadata;
import org.lance.Version;
import org.lance.fragment.DataFile;
import org.lance.schema.LanceField;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads a table's history: commit stamps, newest first, and what each version did to the rows.
 * Reads each version's transaction through {@link VersionTransaction}: in lance-core 7.0.0 {@code
 * DatasetDelta.listTransactions()} fails with an UnsatisfiedLinkError.
 */
@Internal
public final class CommitHistory {
  private static final Logger LOG = LoggerFactory.getLogger(CommitHistory.class);

  private CommitHistory() {}

  /** How far a sink run's commits got, as far as the table's history tells. */
  public sealed interface RunProgress {
    /** The newest commit of the run has sequence number {@code seq}. */
    record Landed(long seq, long version) implements RunProgress {}

    /** Nothing of the run is in the table. */
    record NothingLanded() implements RunProgress {}

    /** The history ended before an answer: versions cleaned up, or the walk's bound reached. */
    record Unknown(String why) implements RunProgress {}
  }

  /**
   * How far {@code run} got. Commits of one run land in sequence order, so the newest one found
   * answers for every committable of the run. The walk goes from the newest version down to {@code
   * afterVersion} (exclusive: the run cannot have committed before it started), reading at most
   * {@code maxVersions} versions, and stops at the first commit of the run.
   */
  public static RunProgress progressOf(
      Dataset latest, String run, long afterVersion, int maxVersions) {
    long newest = latest.version();
    long oldest = Math.max(afterVersion + 1, Math.max(1, newest - maxVersions + 1));
    for (long version = newest; version >= oldest; version--) {
      Optional<Map<String, String>> properties = propertiesAt(latest, version);
      if (properties.isEmpty()) {
        return new RunProgress.Unknown(
            String.format("version %d of %s is gone (cleaned up?)", version, latest.uri()));
      }
      Optional<CommitStamp> stamp = CommitStamp.from(properties.get());
      if (stamp.isPresent() && stamp.get().run().equals(run)) {
        return new RunProgress.Landed(stamp.get().runSeq(), version);
      }
    }
    if (oldest > afterVersion + 1 && oldest > 1) {
      return new RunProgress.Unknown(
          String.format(
              "read the newest %d versions of %s (option sink.commit.dedupe.max-versions)"
                  + " without reaching version %d, where the run started",
              maxVersions, latest.uri(), afterVersion));
    }
    LOG.debug("No commit of sink run {} in versions {}..{} of {}", run, oldest, newest, latest);
    return new RunProgress.NothingLanded();
  }

  /**
   * The version newer than {@code afterVersion} whose transaction is a rewrite (compaction) that
   * added any of {@code newDataFiles}. Lance's {@code commitCompaction} takes no transaction
   * properties, so a compaction commit is recognised by its new data files, whose names are unique.
   * The walk goes oldest first: a rewrite Lance cannot read back is known only by the data files
   * its version holds ({@link VersionTransaction#rewrittenFiles}), which a later rewrite of other
   * fragments holds as well.
   */
  public static OptionalLong findRewrite(
      Dataset latest, long afterVersion, Set<String> newDataFiles) {
    for (long version = afterVersion + 1; version <= latest.version(); version++) {
      try (Dataset at = latest.checkoutVersion(version)) {
        Optional<VersionTransaction> transaction = VersionTransaction.of(at);
        if (transaction.isPresent()
            && transaction.get().kind() == Kind.REWRITE
            && transaction.get().rewrittenFiles().stream().anyMatch(newDataFiles::contains)) {
          return OptionalLong.of(version);
        }
      } catch (Exception e) { // Lance also throws undeclared IOExceptions from native code
        if (!LanceErrors.isNotFound(e)) {
          throw LanceDatasetException.wrap(latest.uri(), "cannot read version " + version, e);
        }
        // cleaned up: the rewrite, if it landed, is in a later version (or gone with it)
      }
    }
    return OptionalLong.empty();
  }

  /**
   * The newest version of the table committed at or before {@code millis} (epoch milliseconds),
   * with its commit instant; empty if the first version still kept was committed after it, with the
   * id and instant of that oldest version for a message ({@link VersionsBy#oldest}).
   */
  public static VersionsBy committedBy(Dataset latest, long millis) {
    List<Version> versions =
        LanceCalls.call(latest.uri(), "cannot list the versions", latest::listVersions);
    long nanos = millis * 1_000_000;
    Version base = null;
    Version oldest = null;
    for (Version version : versions) {
      if (epochNanos(version) <= nanos && (base == null || version.getId() > base.getId())) {
        base = version;
      }
      if (oldest == null || version.getId() < oldest.getId()) {
        oldest = version;
      }
    }
    return new VersionsBy(
        base == null ? null : new VersionMark(base.getId(), epochNanos(base)),
        oldest == null ? null : new VersionMark(oldest.getId(), epochNanos(oldest)));
  }

  /**
   * What {@link #committedBy} found.
   *
   * @param version the newest version committed by the time; null if none of the kept ones was
   * @param oldest the oldest version still kept; null for a table without versions
   */
  public record VersionsBy(VersionMark version, VersionMark oldest) {}

  private static long epochNanos(Version version) {
    return version.getDataTime().toEpochSecond() * 1_000_000_000L + version.getDataTime().getNano();
  }

  /**
   * What versions {@code after + 1} to {@code upTo} did to the rows, in version order. Version 0 is
   * the table before its first version: empty.
   *
   * @param columns the top-level columns the caller reads, or null for all: a fragment whose data
   *     files changed only for other columns (a column added) holds the same rows for the caller
   * @throws PermanentDatasetException naming the version if {@code after}, or a version after it,
   *     no longer exists (cleaned up): what changed there cannot be told any more
   */
  public static List<VersionChange> changesBetween(
      Dataset handle, long after, long upTo, Collection<String> columns) {
    List<VersionChange> changes = new ArrayList<>();
    forEachChange(handle, after, upTo, columns, changes::add);
    return changes;
  }

  /**
   * Hands what each of the versions {@code after + 1} to {@code upTo} did to the rows to {@code
   * each}, in version order, as soon as it is read: when a version cannot be read (or {@code each}
   * throws), the versions before it have been handed on. See {@link #changesBetween}.
   */
  public static void forEachChange(
      Dataset handle,
      long after,
      long upTo,
      Collection<String> columns,
      Consumer<VersionChange> each) {
    Map<Integer, FragmentMetadata> previous = Map.of();
    Schema previousSchema = null;
    if (after > 0) {
      try (Dataset at = checkout(handle, after, after)) {
        previous = fragments(at);
        previousSchema = at.getSchema();
      }
    }
    for (long version = after + 1; version <= upTo; version++) {
      VersionChange change;
      try (Dataset at = checkout(handle, version, after)) {
        Map<Integer, FragmentMetadata> current = fragments(at);
        Schema schema = at.getSchema();
        boolean schemaChanged = !schema.equals(previousSchema);
        change = change(at, version, schemaChanged, previous, current, columns);
        previous = current;
        previousSchema = schema;
      } catch (LanceDatasetException e) {
        throw e;
      } catch (Exception e) { // Lance also throws undeclared IOExceptions from native code
        throw LanceDatasetException.wrap(handle.uri(), "cannot read version " + version, e);
      }
      each.accept(change);
    }
  }

  /** What {@code version} did to the rows; see {@link #changesBetween}. */
  public static VersionChange changeOf(Dataset handle, long version, Collection<String> columns) {
    return changesBetween(handle, version - 1, version, columns).get(0);
  }

  private static VersionChange change(
      Dataset at,
      long version,
      boolean schemaChanged,
      Map<Integer, FragmentMetadata> previous,
      Map<Integer, FragmentMetadata> current,
      Collection<String> columns)
      throws Exception {
    Optional<VersionTransaction> transaction = VersionTransaction.of(at);
    String operation = transaction.map(VersionTransaction::operation).orElse("(no transaction)");
    Kind kind = transaction.map(VersionTransaction::kind).orElse(Kind.ROWS);
    long epochNanos = VersionMark.of(at).epochNanos();
    if (kind == Kind.REWRITE) {
      return new VersionChange(
          version, operation, kind, epochNanos, schemaChanged, List.of(), List.of(), List.of());
    }
    if (kind == Kind.REPLACE && !previous.isEmpty()) {
      return new VersionChange(
          version,
          operation,
          kind,
          epochNanos,
          schemaChanged,
          List.copyOf(previous.keySet()),
          List.of(),
          List.copyOf(current.keySet()));
    }
    // Replacing an empty table (its creation) only adds rows.
    Set<Integer> fieldIds = columns == null ? null : fieldIds(at, columns);
    List<Integer> removed = new ArrayList<>();
    List<Integer> deletedRows = new ArrayList<>();
    List<Integer> added = new ArrayList<>();
    previous.forEach(
        (id, before) -> {
          FragmentMetadata now = current.get(id);
          if (now == null) {
            removed.add(id);
          } else if (!sameData(before, now, fieldIds)) {
            removed.add(id);
            added.add(id);
          } else if (!Objects.equals(before.getDeletionFile(), now.getDeletionFile())) {
            deletedRows.add(id);
          }
        });
    current.keySet().stream().filter(id -> !previous.containsKey(id)).forEach(added::add);
    return new VersionChange(
        version,
        operation,
        Kind.ROWS,
        epochNanos,
        schemaChanged,
        removed,
        deletedRows,
        added.stream().sorted().toList());
  }

  /**
   * The same physical rows with the same values of the read fields (null: of every field): a
   * fragment only ever gains deletions, a column replaced or added gets new data files.
   */
  private static boolean sameData(
      FragmentMetadata before, FragmentMetadata now, Set<Integer> fieldIds) {
    return before.getPhysicalRows() == now.getPhysicalRows()
        && dataFiles(before, fieldIds).equals(dataFiles(now, fieldIds));
  }

  private static List<String> dataFiles(FragmentMetadata fragment, Set<Integer> fieldIds) {
    return fragment.getFiles().stream()
        .filter(file -> fieldIds == null || holdsAny(file, fieldIds))
        .map(DataFile::getPath)
        .toList();
  }

  private static boolean holdsAny(DataFile file, Set<Integer> fieldIds) {
    for (int field : file.getFields()) {
      if (fieldIds.contains(field)) {
        return true;
      }
    }
    return false;
  }

  /** The Lance field ids of the columns and of everything nested in them. */
  private static Set<Integer> fieldIds(Dataset at, Collection<String> columns) {
    Set<Integer> ids = new HashSet<>();
    for (LanceField field : at.getLanceSchema().fields()) {
      if (columns.contains(field.getName())) {
        collectIds(field, ids);
      }
    }
    return ids;
  }

  private static void collectIds(LanceField field, Set<Integer> ids) {
    ids.add(field.getId());
    field.getChildren().forEach(child -> collectIds(child, ids));
  }

  /** Fragments by id, in id order. */
  private static Map<Integer, FragmentMetadata> fragments(Dataset at) {
    Map<Integer, FragmentMetadata> fragments = new TreeMap<>();
    for (Fragment fragment : at.getFragments()) {
      fragments.put(fragment.getId(), fragment.metadata());
    }
    return fragments;
  }

  private static Dataset checkout(Dataset handle, long version, long after) {
    try {
      return handle.checkoutVersion(version);
    } catch (Exception e) { // Lance also throws undeclared IOExceptions from native code
      if (!LanceErrors.isNotFound(e)) {
        throw LanceDatasetException.wrap(handle.uri(), "cannot read version " + version, e);
      }
      String problem =
          String.format(
              "cannot read what the versions after %d changed: version %d no longer exists"
                  + " (cleaned up?)",
              after, version);
      throw new PermanentDatasetException(handle.uri(), problem, e);
    }
  }

  /** The transaction properties of a version; empty if the version no longer exists. */
  private static Optional<Map<String, String>> propertiesAt(Dataset latest, long version) {
    try (Dataset at = latest.checkoutVersion(version)) {
      return Optional.of(
          VersionTransaction.of(at).map(VersionTransaction::properties).orElse(Map.of()));
    } catch (Exception e) { // Lance also throws undeclared IOExceptions from native code
      if (LanceErrors.isNotFound(e)) {
        return Optional.empty();
      }
      throw LanceDatasetException.wrap(latest.uri(), "cannot read version " + version, e);
    }
  }
}
