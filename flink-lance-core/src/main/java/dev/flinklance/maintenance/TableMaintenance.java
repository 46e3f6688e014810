package dev.flinklance.maintenance;

import dev.flinklance.access.TableRef;
import dev.flinklance.access.Warehouse;
import org.apache.flink.annotation.Internal;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.streaming.api.datastream.DataStream;

/**
 * Work that runs in a writing job after its commits (Flink's post-commit topology of the sink),
 * such as compaction. Implementations are found with {@link java.util.ServiceLoader} ({@link
 * TableMaintenances}), so that the module that provides one builds on core alone and the sink knows
 * none of them. Each decides from the sink's options whether it is switched on.
 */
@Internal
public interface TableMaintenance {

  /** The option-key prefix this maintenance owns, e.g. {@code "compaction."}. */
  String optionPrefix();

  /**
   * Validates the options under {@link #optionPrefix()} when the sink is built.
   *
   * @throws IllegalArgumentException naming the invalid option
   */
  void validate(ReadableConfig options);

  /** Whether the options switch this maintenance on. */
  boolean isEnabled(ReadableConfig options);

  /**
   * Adds the maintenance behind the sink's commits.
   *
   * @param commits one event per committed checkpoint, at the committer's parallelism
   * @param table the table the sink writes
   * @param options the sink's options (this maintenance's among them)
   * @param uids whether the sink has a uid: then every operator added needs a fixed uid too (Flink
   *     prefixes them with the sink's), so that a savepoint restores into it
   */
  void addTo(
      DataStream<CommittedCheckpoint> commits,
      TableRef table,
      ReadableConfig options,
      boolean uids);

  /**
   * Adds the maintenance behind the commits of a sink that writes many tables of one warehouse (the
   * dynamic sink): the same work per table, in operators shared by all of them.
   *
   * @param commits one event per table per committed checkpoint
   * @param warehouse where the tables are, with their storage options
   * @param options the sink's options, the same for every table
   * @param uids whether the sink has a uid (see {@link #addTo(DataStream, TableRef, ReadableConfig,
   *     boolean)})
   */
  void addToWarehouse(
      DataStream<TableCommit> commits, Warehouse warehouse, ReadableConfig options, boolean uids);
}
