package dev.flinklance.table.catalog.procedure;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.annotation.ArgumentHint;
import org.apache.flink.table.annotation.DataTypeHint;
import org.apache.flink.table.annotation.ProcedureHint;
import org.apache.flink.table.procedure.ProcedureContext;
import org.apache.flink.table.procedures.Procedure;

/**
 * {@code CALL lake.sys.create_tag('db.t', 'tag'[, version])}: names a table version (default: the
 * latest), which {@code 'scan.tag'} then reads and Lance's cleanup keeps.
 */
@Internal
public final class CreateTagProcedure implements Procedure {
  private final TableResolver tables;

  public CreateTagProcedure(TableResolver tables) {
    this.tables = tables;
  }

  @ProcedureHint(
      argument = {
        @ArgumentHint(name = "table", type = @DataTypeHint("STRING")),
        @ArgumentHint(name = "tag", type = @DataTypeHint("STRING")),
        @ArgumentHint(name = "version", type = @DataTypeHint("BIGINT"), isOptional = true)
      },
      output = @DataTypeHint("BIGINT"))
  public Long[] call(ProcedureContext context, String table, String tag, Long version) {
    return OnLatest.apply(
        tables.table(table),
        "create tag '" + tag + "'",
        latest -> {
          long tagged = version == null ? latest.version() : version;
          latest.tags().create(tag, tagged);
          return new Long[] {tagged};
        });
  }
}
