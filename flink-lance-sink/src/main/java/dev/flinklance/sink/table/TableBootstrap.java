package dev.flinklance.sink.table;

import java.util.Optional;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.types.pojo.Schema;
import org.lance.Dataset;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes sure the table exists before anything is written: opens it, or creates it with the stream's
 * schema. Safe to run from every writer subtask at once: it never leaves another writer's table
 * overwritten (see {@link LanceTable#createIfAbsent}).
 */
public final class TableBootstrap {
  private static final Logger LOG = LoggerFactory.getLogger(TableBootstrap.class);

  /** What a writer needs to know about the table it writes into. */
  public record TableLayout(Schema schema, String dataStorageVersion) {}

  private TableBootstrap() {}

  public static TableLayout ensureTable(
      LanceTable table,
      BufferAllocator allocator,
      Schema streamSchema,
      boolean stableRowIds,
      String dataStorageVersion) {
    Optional<Dataset> dataset = table.openIfExists(allocator);
    if (dataset.isEmpty()) {
      dataset = table.createIfAbsent(allocator, streamSchema, stableRowIds, dataStorageVersion);
      if (dataset.isPresent()) {
        LOG.info("Created Lance table {} with schema {}", table, streamSchema);
      } else {
        // Another subtask or job created it between our open and create.
        dataset = Optional.of(table.open(allocator));
      }
    }
    try (Dataset opened = dataset.get()) {
      return new TableLayout(opened.getSchema(), opened.getLanceFileFormatVersion());
    }
  }
}
