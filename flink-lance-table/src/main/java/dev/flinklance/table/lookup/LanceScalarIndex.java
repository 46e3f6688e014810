package dev.flinklance.table.lookup;

import dev.flinklance.access.TableRef;
import dev.flinklance.arrow.read.LanceReadSchema;
import dev.flinklance.errors.LanceDatasetException;
import dev.flinklance.index.KeyIndex;
import dev.flinklance.index.ScalarIndex;
import dev.flinklance.key.KeyType;
import dev.flinklance.key.PrimaryKey;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.annotation.Internal;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.lance.Dataset;
import org.lance.index.IndexDescription;
import org.lance.index.OptimizeOptions;

/**
 * Builds a scalar (BTree) index on a column of a Lance table, through which lookup joins by that
 * column probe the index instead of scanning the column, or brings an existing one up to date with
 * the fragments appended since (which lookups scan until then); the catalog's {@code
 * sys.create_scalar_index} procedure runs the same. The index is the one the upsert sink builds
 * over a key column ({@link KeyIndex}), and the compaction pass keeps it up to date. Each build or
 * update is one Lance commit, which concurrent appends do not conflict with.
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
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = table.open(allocator)) {
      PrimaryKey key = keyOf(dataset, column);
      ScalarIndex existing = KeyIndex.of(dataset, key).get(column);
      String action;
      if (existing == null) {
        KeyIndex.ensure(dataset, key);
        action = "built";
      } else if (existing.missesFragmentsOf(dataset)) {
        dataset.optimizeIndices(
            OptimizeOptions.builder().indexNames(List.of(existing.name())).build());
        action = "updated";
      } else {
        action = "unchanged";
      }
      dataset.checkoutLatest();
      String name = KeyIndex.of(dataset, key).get(column).name();
      long indexed =
          dataset.describeIndices().stream()
              .filter(d -> d.getName().equals(name))
              .mapToLong(IndexDescription::getRowsIndexed)
              .sum();
      return new Created(name, column, action, indexed, dataset.version());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("Lance table '" + table + "': " + e.getMessage(), e);
    } catch (LanceDatasetException e) {
      throw e;
    } catch (Exception e) { // Lance also throws undeclared IOExceptions from native code
      throw LanceDatasetException.wrap(
          table.uri(), "cannot build a scalar index on column '" + column + "'", e);
    }
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
