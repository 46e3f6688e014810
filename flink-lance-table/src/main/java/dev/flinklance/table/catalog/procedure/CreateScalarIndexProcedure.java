package dev.flinklance.table.catalog.procedure;

import dev.flinklance.secrets.Secrets;
import dev.flinklance.table.lookup.LanceScalarIndex;
import org.apache.flink.annotation.Internal;
import org.apache.flink.table.annotation.ArgumentHint;
import org.apache.flink.table.annotation.DataTypeHint;
import org.apache.flink.table.annotation.ProcedureHint;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.procedure.ProcedureContext;
import org.apache.flink.table.procedures.Procedure;
import org.apache.flink.types.Row;

/**
 * {@code CALL lake.sys.create_scalar_index('db.t', 'user_id')}: builds a BTree index on a column
 * for lookup joins by it, or brings the existing one up to date ({@link LanceScalarIndex}).
 */
@Internal
public final class CreateScalarIndexProcedure implements Procedure {
  private final TableResolver tables;

  public CreateScalarIndexProcedure(TableResolver tables) {
    this.tables = tables;
  }

  @ProcedureHint(
      argument = {
        @ArgumentHint(name = "table", type = @DataTypeHint("STRING")),
        @ArgumentHint(name = "column", type = @DataTypeHint("STRING"))
      },
      output =
          @DataTypeHint(
              "ROW<index_name STRING, action STRING, rows_indexed BIGINT, table_version BIGINT>"))
  public Row[] call(ProcedureContext context, String table, String column) {
    LanceScalarIndex.Created created;
    try {
      created = LanceScalarIndex.create(tables.table(table), column);
    } catch (IllegalArgumentException e) {
      throw new ValidationException(Secrets.redact(e.getMessage()), Secrets.scrub(e));
    }
    return new Row[] {
      Row.of(created.name(), created.action(), created.rowsIndexed(), created.tableVersion())
    };
  }
}
