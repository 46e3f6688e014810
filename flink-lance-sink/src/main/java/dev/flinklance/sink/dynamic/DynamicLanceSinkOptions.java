package dev.flinklance.sink.dynamic;

import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.MemorySize;

/**
 * Options of the {@link DynamicLanceSink} besides those it shares with the single-table sink
 * ({@code sink.*}, {@code storage.*}, table layout), which apply to every table it writes.
 */
@PublicEvolving
public final class DynamicLanceSinkOptions {

  public static final ConfigOption<String> WAREHOUSE =
      ConfigOptions.key("warehouse")
          .stringType()
          .noDefaultValue()
          .withDescription(
              "The dynamic sink's tables: a record for table db.t goes to the Lance table"
                  + " <warehouse>/db/t.lance, the layout of the Lance catalog with the same"
                  + " warehouse (which lists the tables of its registered databases), LanceDB"
                  + " and Lance's directory namespace.");

  public static final ConfigOption<Integer> SINK_DYNAMIC_WRITERS_PER_TABLE =
      ConfigOptions.key("sink.dynamic.writers-per-table")
          .intType()
          .defaultValue(1)
          .withDescription(
              "How many writer subtasks take the rows appended to one table, in turn (tables are"
                  + " spread over the writers by name). Each writes a fragment file per checkpoint:"
                  + " raise it for tables that get more rows than one writer keeps up with. Rows"
                  + " of a table with a primary key go to the writer of their key, whatever this"
                  + " says.");

  public static final ConfigOption<Integer> SINK_DYNAMIC_MAX_OPEN_TABLES =
      ConfigOptions.key("sink.dynamic.max-open-tables")
          .intType()
          .defaultValue(1000)
          .withDescription(
              "How many tables a writer subtask appends to at once. An open table holds the"
                  + " batch it fills (from a few KB) and, once a batch is full, the fragment file"
                  + " being written; past this many, the table written least recently finishes its"
                  + " file (committed with the checkpoint) and closes, and its next record opens"
                  + " it again (which reads the table's manifest). A table with a primary key"
                  + " holds its changes until the checkpoint, whatever this says. A table that"
                  + " got no record between two checkpoints is closed at the second.");

  public static final ConfigOption<MemorySize> SINK_DYNAMIC_MAX_BUFFER_SIZE =
      ConfigOptions.key("sink.dynamic.max-buffer-size")
          .memoryType()
          .defaultValue(MemorySize.ofMebiBytes(512))
          .withDescription(
              "Arrow memory of all the tables a writer subtask has open (each table's own is"
                  + " bounded by sink.max-buffer-size, or sink.upsert.max-buffer-size for a table"
                  + " with a primary key): past it, the appending table holding the most finishes"
                  + " its file (committed with the checkpoint) and closes. Changes by key stay"
                  + " until the checkpoint: when they alone pass it, nothing is closed.");

  public static final ConfigOption<Integer> SINK_DYNAMIC_COMMIT_THREADS =
      ConfigOptions.key("sink.dynamic.commit-threads")
          .intType()
          .defaultValue(4)
          .withDescription(
              "How many tables the committer commits at once: each table's checkpoint is one"
                  + " Lance transaction, and a slow table does not hold up the others beyond"
                  + " the checkpoint's end.");

  private DynamicLanceSinkOptions() {}
}
