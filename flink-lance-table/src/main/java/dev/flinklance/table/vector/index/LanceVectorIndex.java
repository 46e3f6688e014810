package dev.flinklance.table.vector.index;

import dev.flinklance.access.LanceDatasetOptions;
import dev.flinklance.access.TableRef;
import dev.flinklance.config.CommandLineArgs;
import dev.flinklance.errors.LanceDatasetException;
import dev.flinklance.index.VectorIndex;
import dev.flinklance.index.vector.VectorIndexBuild;
import dev.flinklance.index.vector.VectorIndexOptions;
import dev.flinklance.index.vector.VectorIndexType;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.annotation.Internal;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.configuration.Configuration;

/**
 * Builds a vector index on a column of a Lance table, from a Flink program (DataStream or any JVM)
 * or the command line; the catalog's {@code sys.create_vector_index} procedure runs the same build
 * ({@link VectorIndexBuild}, with the options of {@link VectorIndexOptions}). Lance trains the
 * index on the rows of the latest version and commits it as a new version; rows appended meanwhile,
 * and later, are searched exactly until an index optimisation (the compactor's pass does one) adds
 * them.
 *
 * <pre>
 * LanceVectorIndex --path s3://bucket/docs.lance --column embedding --type IVF_PQ \
 *     --storage.aws_region eu-west-1 --metric cosine --num-partitions 256
 * </pre>
 */
@PublicEvolving
public final class LanceVectorIndex {
  static final String USAGE =
      String.join(
          "\n",
          "Usage: LanceVectorIndex --path <uri> --column <column> --type <type>",
          "                        [--storage.<key> <value>]... [--<option> <value>]...",
          "  --path <uri>               the Lance table (local path, file://, s3://, ...)",
          "  --column <column>          the vector column",
          "  --type <type>              " + List.of(VectorIndexType.values()),
          "  --storage.<key> <value>    Lance storage option, e.g. --storage.aws_region eu-west-1",
          "  --<option> <value>         a build option (docs/options.md#vector-index): metric, name,",
          "                             replace, num-partitions, num-sub-vectors, num-bits,",
          "                             max-iterations, sample-rate, hnsw.m, hnsw.ef-construction");

  /**
   * What a build made.
   *
   * @param rowsIndexed rows the index covers
   * @param tableVersion the table version that holds the index
   */
  public record Created(
      String name,
      String column,
      String type,
      String metric,
      long rowsIndexed,
      long tableVersion) {}

  private LanceVectorIndex() {}

  /**
   * Builds (or, with {@code replace}, rebuilds) the index and waits for it.
   *
   * @param type one of {@link VectorIndexType}, case-insensitive
   * @param options {@link VectorIndexOptions} keys
   * @throws IllegalArgumentException for an invalid type, option or column, before anything is
   *     built
   * @throws LanceDatasetException naming the table if Lance fails
   */
  @Internal // the procedure's and the command line's; users call those
  public static Created create(
      TableRef table, String column, String type, Map<String, String> options) {
    VectorIndexBuild.Built built = VectorIndexBuild.of(column, type, options).create(table);
    VectorIndex index = built.index();
    return new Created(
        index.name(),
        column,
        index.type(),
        index.lanceMetric(),
        built.rowsIndexed(),
        built.tableVersion());
  }

  /**
   * The command line above: prints what it built.
   *
   * @throws IllegalArgumentException for bad arguments (after printing the usage); nothing is built
   */
  public static void main(String[] args) {
    Map<String, String> tableOptions = new HashMap<>();
    Map<String, String> buildOptions = new HashMap<>();
    String column;
    String type;
    try {
      // every other --key is a build option, which VectorIndexBuild checks
      CommandLineArgs line = CommandLineArgs.parse(args, Set.of(), key -> true);
      line.values()
          .forEach(
              (name, value) -> {
                if (name.equals("path")) {
                  tableOptions.put(LanceDatasetOptions.PATH.key(), value);
                } else if (name.startsWith(LanceDatasetOptions.STORAGE_PREFIX)) {
                  tableOptions.put(name, value);
                } else if (!name.equals("column") && !name.equals("type")) {
                  buildOptions.put(name, value);
                }
              });
      column = line.get("column").orElse(null);
      type = line.get("type").orElse(null);
      if (!tableOptions.containsKey(LanceDatasetOptions.PATH.key())
          || column == null
          || type == null) {
        throw new IllegalArgumentException("--path, --column and --type are required");
      }
      VectorIndexBuild.of(column, type, buildOptions); // bad options before the table is opened
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage() + "\n" + USAGE);
      throw new IllegalArgumentException(e.getMessage() + "\n" + USAGE, e);
    }
    TableRef table =
        LanceDatasetOptions.dataset(
            tableOptions.get(LanceDatasetOptions.PATH.key()), Configuration.fromMap(tableOptions));
    System.out.println(create(table, column, type, buildOptions));
  }
}
