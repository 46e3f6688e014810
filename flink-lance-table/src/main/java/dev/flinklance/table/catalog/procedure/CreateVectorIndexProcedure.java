package dev.flinklance.table.catalog.procedure;

import dev.flinklance.secrets.Secrets;
import dev.flinklance.table.vector.index.LanceVectorIndex;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.flink.annotation.Internal;
import org.apache.flink.table.annotation.ArgumentHint;
import org.apache.flink.table.annotation.DataTypeHint;
import org.apache.flink.table.annotation.ProcedureHint;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.procedure.ProcedureContext;
import org.apache.flink.table.procedures.Procedure;
import org.apache.flink.types.Row;

/**
 * {@code CALL lake.sys.create_vector_index('db.t', 'embedding', 'IVF_PQ'[,
 * 'metric=cosine,num-partitions=256'])}: builds (by default rebuilds) a vector index on a column
 * with {@link LanceVectorIndex}. The options are one string of {@code key=value} pairs: Flink 2.2
 * passes only literals to procedures, and a MAP constructor is not one.
 */
@Internal
public final class CreateVectorIndexProcedure implements Procedure {
  private final TableResolver tables;

  public CreateVectorIndexProcedure(TableResolver tables) {
    this.tables = tables;
  }

  @ProcedureHint(
      argument = {
        @ArgumentHint(name = "table", type = @DataTypeHint("STRING")),
        @ArgumentHint(name = "column", type = @DataTypeHint("STRING")),
        @ArgumentHint(name = "index_type", type = @DataTypeHint("STRING")),
        @ArgumentHint(name = "options", type = @DataTypeHint("STRING"), isOptional = true)
      },
      output =
          @DataTypeHint(
              "ROW<index_name STRING, index_type STRING, metric STRING, rows_indexed BIGINT,"
                  + " table_version BIGINT>"))
  public Row[] call(
      ProcedureContext context, String table, String column, String indexType, String options) {
    LanceVectorIndex.Created created;
    try {
      created = LanceVectorIndex.create(tables.table(table), column, indexType, keyValues(options));
    } catch (IllegalArgumentException e) {
      throw new ValidationException(Secrets.redact(e.getMessage()), Secrets.scrub(e));
    }
    return new Row[] {
      Row.of(
          created.name(),
          created.type(),
          created.metric(),
          created.rowsIndexed(),
          created.tableVersion())
    };
  }

  /**
   * @throws ValidationException for a pair without {@code =}
   */
  static Map<String, String> keyValues(String options) {
    Map<String, String> parsed = new LinkedHashMap<>();
    if (options == null || options.isBlank()) {
      return parsed;
    }
    for (String pair : options.split(",")) {
      int equals = pair.indexOf('=');
      if (equals <= 0) {
        throw new ValidationException(
            String.format(
                "Vector index options are key=value pairs separated by commas, like"
                    + " 'metric=cosine,num-partitions=256'; got '%s'",
                pair.trim()));
      }
      parsed.put(pair.substring(0, equals).trim(), pair.substring(equals + 1).trim());
    }
    return parsed;
  }
}
