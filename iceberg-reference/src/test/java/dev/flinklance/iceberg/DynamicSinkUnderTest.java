package dev.flinklance.iceberg;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.flink.streaming.api.datastream.DataStream;

/** One of the two dynamic sinks, writing its tables into a warehouse directory of its own. */
interface DynamicSinkUnderTest {
  String name();

  Path warehouse();

  /** Sends the records numbered by {@code numbers} (one source subtask, in order) to the sink. */
  void sink(DataStream<Long> numbers, Records records);

  /** The table's rows by id as [id, v, note]; fails on an id that is there twice. */
  Map<Long, List<Object>> rows(String table);

  /** The table's columns, in order. */
  List<String> columns(String table);

  /**
   * Each commit that brought rows, oldest first: Lance's stamped sink commits, Iceberg's snapshots
   * with their {@code flink.max-committed-checkpoint-id} (not the empty snapshot Iceberg commits to
   * create the table's branch).
   */
  List<Commit> commits(String table);

  /** The checkpoint of each commit that brought rows, oldest first. */
  default List<Long> committedCheckpoints(String table) {
    return commits(table).stream().map(Commit::checkpointId).toList();
  }

  /** Versions of the table's metadata: Lance's manifests, Iceberg's metadata files. */
  long versions(String table);

  /** The table's directory: all its files, data and metadata. */
  Path tableDirectory(String table);

  /**
   * A table's commit: the checkpoint it committed, and when, as the table's history has it (Lance:
   * the version's timestamp; Iceberg: the snapshot's {@code timestamp-ms}), in milliseconds since
   * the epoch.
   */
  record Commit(long checkpointId, long millis) {}
}
