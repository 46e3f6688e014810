package dev.flinklance.table.catalog.procedure;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.annotation.ArgumentHint;
import org.apache.flink.table.annotation.DataTypeHint;
import org.apache.flink.table.annotation.ProcedureHint;
import org.apache.flink.table.procedure.ProcedureContext;
import org.apache.flink.table.procedures.Procedure;

/** {@code CALL lake.sys.delete_tag('db.t', 'tag')}: removes a tag (its version may be cleaned). */
@Internal
public final class DeleteTagProcedure implements Procedure {
  private final TableResolver tables;

  public DeleteTagProcedure(TableResolver tables) {
    this.tables = tables;
  }

  @ProcedureHint(
      argument = {
        @ArgumentHint(name = "table", type = @DataTypeHint("STRING")),
        @ArgumentHint(name = "tag", type = @DataTypeHint("STRING"))
      },
      output = @DataTypeHint("STRING"))
  public String[] call(ProcedureContext context, String table, String tag) {
    return OnLatest.apply(
        tables.table(table),
        "delete tag '" + tag + "'",
        latest -> {
          latest.tags().delete(tag);
          return new String[] {tag};
        });
  }
}
