package dev.flinklance.commit;

import java.util.List;
import org.apache.flink.annotation.Internal;

/**
 * What one table version did to the table's rows: its operation, and its fragments compared with
 * those of the version before. Within a table's history a fragment id names one fragment (Lance
 * gives new fragments ids above every id used so far), so a fragment in both versions is the same
 * rows, minus the ones its new deletion file removes. Only a {@link Kind#REPLACE} starts the ids
 * over.
 *
 * @param version the version
 * @param operation Lance's name of the version's operation ("Append", "Delete", "Update", ...)
 * @param epochNanos the commit instant of the version
 * @param schemaChanged whether the version's schema differs from the one before (a column added,
 *     dropped or altered, or a table replaced)
 * @param removedFragments fragments of {@code version - 1} whose rows are all gone: read there
 * @param deletedRowsFragments fragments in both versions with rows deleted by {@code version}: the
 *     rows live at {@code version - 1} and not at {@code version}
 * @param addedFragments fragments of {@code version} whose rows are all new: read there
 */
@Internal
public record VersionChange(
    long version,
    String operation,
    Kind kind,
    long epochNanos,
    boolean schemaChanged,
    List<Integer> removedFragments,
    List<Integer> deletedRowsFragments,
    List<Integer> addedFragments) {

  /** How a version's rows relate to those of the version before. */
  public enum Kind {
    /**
     * Rows were added, deleted or changed as the fragment lists say (Append, Delete, Update and
     * merge-insert, a column replaced), or none (a config change, an index).
     */
    ROWS,
    /** The same rows in other fragments: compaction (Rewrite, and its ReserveFragments). */
    REWRITE,
    /**
     * The table's content was replaced (Overwrite, Restore of an older version) while it held rows:
     * the fragment lists are every fragment of each version.
     */
    REPLACE
  }

  public VersionChange {
    removedFragments = List.copyOf(removedFragments);
    deletedRowsFragments = List.copyOf(deletedRowsFragments);
    addedFragments = List.copyOf(addedFragments);
  }

  /** Whether some row of {@code version - 1} is not in {@code version} (as far as rows go). */
  public boolean removesRows() {
    return kind != Kind.REWRITE && !(removedFragments.isEmpty() && deletedRowsFragments.isEmpty());
  }

  /** Whether the version's rows differ from those of the version before. */
  public boolean changesRows() {
    return kind != Kind.REWRITE && (removesRows() || !addedFragments.isEmpty());
  }
}
