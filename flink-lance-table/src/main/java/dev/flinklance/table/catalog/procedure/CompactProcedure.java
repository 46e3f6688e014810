package dev.flinklance.table.catalog.procedure;

import static dev.flinklance.compactor.LanceCompactionOptions.COMPACTION_ENABLED;
import static dev.flinklance.compactor.LanceCompactionOptions.COMPACTION_TRIGGER_COMMITS;
import static dev.flinklance.compactor.LanceCompactionOptions.COMPACTION_TRIGGER_INTERVAL;
import static dev.flinklance.compactor.LanceCompactionOptions.COMPACTION_TRIGGER_SMALL_FRAGMENTS;

import dev.flinklance.access.LanceDatasetOptions;
import dev.flinklance.access.TableRef;
import dev.flinklance.compactor.CompactionFailedException;
import dev.flinklance.compactor.LanceCompactionJob;
import dev.flinklance.compactor.LanceCompactionOptions;
import dev.flinklance.compactor.commit.CompactionSummary;
import dev.flinklance.config.OptionFields;
import dev.flinklance.secrets.Secrets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.flink.annotation.Internal;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.table.annotation.ArgumentHint;
import org.apache.flink.table.annotation.DataTypeHint;
import org.apache.flink.table.annotation.ProcedureHint;
import org.apache.flink.table.api.TableException;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.procedure.ProcedureContext;
import org.apache.flink.table.procedures.Procedure;
import org.apache.flink.types.Row;

/**
 * {@code CALL lake.sys.compact('db.t'[, 'compaction.cleanup-older-than=7d,...'])}: one compaction
 * pass over the table, as a Flink job of the calling session ({@link
 * LanceCompactionJob#compactOnce}: the standalone job's planner, rewrite workers and committer,
 * with row-lineage spill). Options are the {@code compaction.*} keys; those stored with the catalog
 * table apply unless the call sets them. Returns one row per compaction the pass made.
 */
@Internal
public final class CompactProcedure implements Procedure {
  static final String EXAMPLE =
      "compaction.target-rows-per-fragment=1000000,compaction.cleanup-older-than=7d";

  /** Keys that steer the sink's compaction trigger: a pass compacts whatever it can, now. */
  private static final Set<String> NOT_FOR_A_PASS =
      Set.of(
          COMPACTION_ENABLED.key(),
          COMPACTION_TRIGGER_SMALL_FRAGMENTS.key(),
          COMPACTION_TRIGGER_COMMITS.key(),
          COMPACTION_TRIGGER_INTERVAL.key());

  private final TableResolver tables;

  public CompactProcedure(TableResolver tables) {
    this.tables = tables;
  }

  @ProcedureHint(
      argument = {
        @ArgumentHint(name = "table", type = @DataTypeHint("STRING")),
        @ArgumentHint(name = "options", type = @DataTypeHint("STRING"), isOptional = true)
      },
      output =
          @DataTypeHint(
              "ROW<outcome STRING, table_version BIGINT, fragments_before INT, fragments_after"
                  + " INT, fragments_rewritten INT, fragments_written INT, rows_rewritten BIGINT,"
                  + " bytes_rewritten BIGINT, lineage_bytes_spilled BIGINT, rewrites_preempted INT,"
                  + " rewrites_failed INT, duration_ms BIGINT>"))
  public Row[] call(ProcedureContext context, String table, String options) throws Exception {
    TableRef dataset = tables.table(table);
    Map<String, String> given = ProcedureOptions.parse(options, EXAMPLE);
    given.keySet().forEach(CompactProcedure::checkKey);
    Map<String, String> stored = tables.storedOptions(dataset);
    List<CompactionSummary> summaries;
    try {
      summaries =
          LanceCompactionJob.compactOnce(
              context.getExecutionEnvironment(), passOptions(dataset, stored, given));
      LanceCompactionJob.requireSucceeded(dataset, summaries);
    } catch (IllegalArgumentException e) {
      throw new ValidationException(Secrets.redact(e.getMessage()), Secrets.scrub(e));
    } catch (CompactionFailedException e) {
      throw new TableException(Secrets.redact(e.getMessage()), Secrets.scrub(e));
    }
    return summaries.stream().map(CompactProcedure::row).toArray(Row[]::new);
  }

  private static void checkKey(String key) {
    Set<String> valid = new TreeSet<>();
    for (ConfigOption<?> option : OptionFields.of(LanceCompactionOptions.class)) {
      valid.add(option.key());
    }
    valid.removeAll(NOT_FOR_A_PASS);
    if (NOT_FOR_A_PASS.contains(key)) {
      throw new ValidationException(
          String.format(
              "Option '%s' steers compaction inside a sink's job; sys.compact compacts at once."
                  + " Options of sys.compact: %s",
              key, valid));
    }
    if (!valid.contains(key)) {
      throw new ValidationException(
          String.format("Unsupported option '%s' for sys.compact. Supported: %s", key, valid));
    }
  }

  /**
   * The table (its storage options and namespace), the {@code compaction.*} options stored with it,
   * and the call's options over them.
   */
  static Configuration passOptions(
      TableRef table, Map<String, String> stored, Map<String, String> given) {
    Configuration options = Configuration.fromMap(LanceDatasetOptions.toOptions(table));
    stored.forEach(
        (key, value) -> {
          if (key.startsWith(LanceCompactionOptions.PREFIX)) {
            options.setString(key, value);
          }
        });
    given.forEach(options::setString);
    return options;
  }

  private static Row row(CompactionSummary summary) {
    return Row.of(
        summary.outcome().name(),
        summary.version() < 0 ? null : summary.version(),
        summary.fragmentsBefore(),
        summary.fragmentsAfter(),
        summary.fragmentsRewritten(),
        summary.fragmentsWritten(),
        summary.rowsRewritten(),
        summary.bytesRewritten(),
        summary.lineageBytesSpilled(),
        summary.groupsPreempted(),
        summary.tasksFailed(),
        summary.durationMs());
  }
}
