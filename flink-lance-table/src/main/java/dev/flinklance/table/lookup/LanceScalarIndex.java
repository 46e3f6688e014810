package dev.flinklance.table.lookup;

import dev.flinklance.access.TableRef;
import dev.flinklance.errors.LanceDatasetException;
import dev.flinklance.index.KeyIndex;
import dev.flinklance.index.scalar.ScalarIndexBuild;
import org.apache.flink.annotation.Internal;
import org.apache.flink.annotation.PublicEvolving;

/**
 * Builds a scalar (BTree) index on a column of a Lance table, through which lookup joins by that
 * column probe the index instead of scanning the column, or brings an existing one up to date with
 * the fragments appended since (which lookups scan until then); the catalog's {@code
 * sys.create_scalar_index} procedure runs the same. The index is the one the upsert sink builds
 * over a key column ({@link KeyIndex}), and the compaction pass keeps it up to date. Each build or
 * update is one Lance commit, which concurrent appends do not conflict with ({@link
 * ScalarIndexBuild}).
 */
@PublicEvolving
public final class LanceScalarIndex {

  /**
   * What a call did.
   *
   * @param action {@code built}, {@code updated} (fragments added to an existing index) or {@code
   *     unchanged} (the index covered every fragment)
   * @param rowsIndexed rows the index covers
   * @param tableVersion the table version that holds the index
   */
  public record Created(
      String name, String column, String action, long rowsIndexed, long tableVersion) {}

  private LanceScalarIndex() {}

  /**
   * @throws IllegalArgumentException naming the table and the column if it does not exist or has a
   *     type a lookup cannot probe an index with, before anything is built
   * @throws LanceDatasetException naming the table if Lance fails
   */
  @Internal // the procedure's and the command line's; users call those
  public static Created create(TableRef table, String column) {
    ScalarIndexBuild.Built built = ScalarIndexBuild.create(table, column);
    return new Created(
        built.index().name(),
        column,
        built.action().toString(),
        built.rowsIndexed(),
        built.tableVersion());
  }
}
