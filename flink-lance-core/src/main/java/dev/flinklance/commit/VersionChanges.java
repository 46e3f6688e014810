package dev.flinklance.commit;

import dev.flinklance.access.VersionMark;
import dev.flinklance.arrow.read.LanceReadSchema;
import dev.flinklance.commit.VersionChange.Kind;
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
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.annotation.Internal;
import org.lance.Dataset;
import org.lance.Fragment;
import org.lance.FragmentMetadata;
import org.lance.fragment.DataFile;
import org.lance.schema.LanceField;
import org.lance.schema.LanceSchema;

/**
 * What each version of a table did to the rows: fragments removed, added, and gaining deleted rows,
 * from comparing each version's fragments with the version before (what a streaming read emits).
 * Each version's operation comes from its transaction ({@link VersionTransaction}).
 */
@Internal
public final class VersionChanges {
  private VersionChanges() {}

  /**
   * What versions {@code after + 1} to {@code upTo} did to the rows, in version order. Version 0 is
   * the table before its first version: empty.
   *
   * @param columns the top-level columns the caller reads, or null for all: a fragment whose data
   *     files changed only for other columns (a column added) holds the same rows for the caller
   * @throws PermanentDatasetException naming the version if {@code after}, or a version after it,
   *     no longer exists (cleaned up): what changed there cannot be told any more
   */
  public static List<VersionChange> between(
      Dataset handle, long after, long upTo, Collection<String> columns) {
    List<VersionChange> changes = new ArrayList<>();
    forEach(handle, after, upTo, columns, changes::add);
    return changes;
  }

  /**
   * Hands what each of the versions {@code after + 1} to {@code upTo} did to the rows to {@code
   * each}, in version order, as soon as it is read: when a version cannot be read (or {@code each}
   * throws), the versions before it have been handed on. See {@link #between}.
   */
  public static void forEach(
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

  /** What {@code version} did to the rows; see {@link #between}. */
  public static VersionChange of(Dataset handle, long version, Collection<String> columns) {
    return between(handle, version - 1, version, columns).get(0);
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

  /**
   * The Lance field ids of the columns and of everything nested in them; null (every field) where
   * Lance cannot describe the fields.
   */
  private static Set<Integer> fieldIds(Dataset at, Collection<String> columns) {
    Optional<LanceSchema> schema = LanceReadSchema.lanceFieldsOf(at);
    if (schema.isEmpty()) {
      return null;
    }
    Set<Integer> ids = new HashSet<>();
    for (LanceField field : schema.get().fields()) {
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
}
