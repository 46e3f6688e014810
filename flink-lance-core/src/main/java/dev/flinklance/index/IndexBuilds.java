package dev.flinklance.index;

import dev.flinklance.access.OpenTable;
import dev.flinklance.access.TableRef;
import dev.flinklance.errors.LanceDatasetException;
import org.apache.flink.annotation.Internal;
import org.lance.Dataset;
import org.lance.index.IndexDescription;

/**
 * What the builds a user asks for (a vector index, a scalar index) share: the latest version opened
 * for the build, and its failures reported naming the table.
 */
@Internal
public final class IndexBuilds {

  /** A build on an open table version. */
  @FunctionalInterface
  public interface Build<T> {
    T run(OpenTable table) throws Exception;
  }

  private IndexBuilds() {}

  /**
   * Runs {@code build} on the latest version of {@code table}.
   *
   * @param problem what failed, for the message of a Lance failure: "cannot build ..."
   * @throws IllegalArgumentException for bad input (the build's message, naming the table)
   * @throws LanceDatasetException naming the table if Lance fails
   */
  public static <T> T onLatest(TableRef table, String problem, Build<T> build) {
    try (OpenTable open = OpenTable.latest(table)) {
      return build.run(open);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("Lance table '" + table + "': " + e.getMessage(), e);
    } catch (LanceDatasetException e) {
      throw e;
    } catch (Exception e) { // Lance also throws undeclared IOExceptions from native code
      throw LanceDatasetException.wrap(table.uri(), problem, e);
    }
  }

  /** The rows the index {@code name} of the dataset's version covers (all its segments). */
  public static long rowsIndexed(Dataset dataset, String name) {
    return dataset.describeIndices().stream()
        .filter(d -> d.getName().equals(name))
        .mapToLong(IndexDescription::getRowsIndexed)
        .sum();
  }
}
