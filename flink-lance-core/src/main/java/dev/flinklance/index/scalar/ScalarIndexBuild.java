package dev.flinklance.index.scalar;

import dev.flinklance.access.OpenTable;
import dev.flinklance.access.TableRef;
import dev.flinklance.arrow.read.LanceReadSchema;
import dev.flinklance.index.IndexBuilds;
import dev.flinklance.index.KeyIndex;
import dev.flinklance.index.ScalarIndex;
import dev.flinklance.key.KeyType;
import dev.flinklance.key.PrimaryKey;
import java.util.List;
import java.util.Locale;
import org.apache.flink.annotation.Internal;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.lance.Dataset;
import org.lance.index.OptimizeOptions;

/**
 * Builds a scalar (BTree) index on a column, through which lookups by that column probe the index
 * instead of scanning the column, or brings an existing one up to date with the fragments appended
 * since (which lookups scan until then). The index is the one the upsert sink builds over a key
 * column ({@link KeyIndex}), and the compaction pass keeps it up to date ({@link
 * ScalarIndexUpkeep}). Each build or update is one Lance commit, which concurrent appends do not
 * conflict with.
 */
@Internal
public final class ScalarIndexBuild {

  /** What a call did to the column's index. */
  public enum Action {
    /** a new index */
    BUILT,
    /** the fragments it missed added */
    UPDATED,
    /** it covered every fragment */
    UNCHANGED;

    @Override
    public String toString() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /**
   * @param rowsIndexed rows the index covers
   * @param tableVersion the table version that holds the index
   */
  public record Built(ScalarIndex index, Action action, long rowsIndexed, long tableVersion) {}

  private ScalarIndexBuild() {}

  /**
   * @throws IllegalArgumentException naming the table and the column if it does not exist or has a
   *     type a lookup cannot probe an index with, before anything is built
   * @throws dev.flinklance.errors.LanceDatasetException naming the table if Lance fails
   */
  public static Built create(TableRef table, String column) {
    return IndexBuilds.onLatest(
        table,
        "cannot build a scalar index on column '" + column + "'",
        open -> {
          Dataset dataset = open.dataset();
          PrimaryKey key = keyOf(dataset, column);
          ScalarIndex existing = KeyIndex.of(dataset, key).get(column);
          Action action;
          if (existing == null) {
            KeyIndex.ensure(dataset, key);
            action = Action.BUILT;
          } else if (existing.missesFragmentsOf(dataset)) {
            dataset.optimizeIndices(
                OptimizeOptions.builder().indexNames(List.of(existing.name())).build());
            action = Action.UPDATED;
          } else {
            action = Action.UNCHANGED;
          }
          return built(open, key, column, action);
        });
  }

  private static Built built(OpenTable open, PrimaryKey key, String column, Action action) {
    open.moveToLatest();
    Dataset dataset = open.dataset();
    ScalarIndex index = KeyIndex.of(dataset, key).get(column);
    return new Built(
        index, action, IndexBuilds.rowsIndexed(dataset, index.name()), dataset.version());
  }

  private static PrimaryKey keyOf(Dataset dataset, String column) throws Exception {
    RowType type = LanceReadSchema.of(dataset).rowType(List.of(column));
    LogicalType columnType = type.getTypeAt(0);
    if (!KeyType.supports(columnType)) {
      throw new IllegalArgumentException(
          String.format(
              "column '%s' holds %s; a scalar index for lookups takes a column of the types %s",
              column, columnType.asSummaryString(), KeyType.SUPPORTED));
    }
    return PrimaryKey.of(type, List.of(column), dataset.uri());
  }
}
