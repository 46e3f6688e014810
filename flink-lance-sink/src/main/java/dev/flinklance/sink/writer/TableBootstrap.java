package dev.flinklance.sink.writer;

import dev.flinklance.access.ConditionalPutProbe;
import dev.flinklance.access.OpenTable;
import dev.flinklance.access.TableRef;
import dev.flinklance.access.VersionMark;
import dev.flinklance.errors.LanceDatasetException;
import dev.flinklance.errors.LanceRetries;
import dev.flinklance.errors.PermanentDatasetException;
import dev.flinklance.schema.FieldIds;
import dev.flinklance.sink.SchemaEvolutionMode;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.annotation.Internal;
import org.apache.flink.util.concurrent.FixedRetryStrategy;
import org.apache.flink.util.concurrent.RetryStrategy;
import org.lance.Dataset;
import org.lance.schema.LanceSchema;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes sure the table exists before anything is written: checks that its object store honours
 * Lance's create-only commits ({@link ConditionalPutProbe}), then opens it, or creates it with the
 * stream's schema, and adds the stream's columns an existing table lacks where the sink may ({@link
 * MissingColumns}). Safe to run from every writer subtask at once: it never leaves another writer's
 * table overwritten (see {@link TableRef#createIfAbsent}), nor adds a column twice.
 */
@Internal
public final class TableBootstrap {
  private static final Logger LOG = LoggerFactory.getLogger(TableBootstrap.class);
  private static final Duration POLL_INTERVAL = Duration.ofMillis(50);

  /** About 10 s of waits (and the looks in between) for the creating subtask's table. */
  private static final RetryStrategy CREATOR_WAIT = new FixedRetryStrategy(200, POLL_INTERVAL);

  /**
   * What a writer needs to know about the table it writes into.
   *
   * @param lanceSchema the schema with Lance's field metadata (the primary key it declares)
   * @param opened the version the writer saw at start, to tell the table from a replacement
   */
  public record TargetTable(
      Schema schema, LanceSchema lanceSchema, String dataStorageVersion, VersionMark opened) {}

  private TableBootstrap() {}

  /**
   * @param creator whether this caller should create a missing table, or add the stream's columns
   *     an existing one lacks, at once (writer subtask 0); the others first wait about 10 s ({@link
   *     #CREATOR_WAIT}) for it to do so, which keeps the subtasks of one job from racing each other
   *     (a race is undone, or harmless, but leaves extra versions)
   * @param evolution what to do with columns of the stream the table lacks
   * @throws PermanentDatasetException naming the table and the stream's columns it lacks, unless
   *     they could be added
   */
  public static TargetTable ensureTable(
      TableRef table,
      Schema streamSchema,
      boolean stableRowIds,
      String dataStorageVersion,
      boolean creator,
      SchemaEvolutionMode evolution) {
    ConditionalPutProbe.verify(table);
    Optional<OpenTable> open = creator ? OpenTable.latestIfExists(table) : awaitTable(table);
    if (open.isEmpty()) {
      open =
          OpenTable.createIfAbsent(table, streamSchema, stableRowIds, dataStorageVersion, Map.of());
      if (open.isPresent()) {
        LOG.info("Created Lance table {} with schema {}", table, streamSchema);
      } else {
        // Another subtask or job created it between our open and create.
        open = Optional.of(OpenTable.latest(table));
      }
    }
    try (OpenTable opened = open.get()) {
      if (!creator && evolution == SchemaEvolutionMode.ADD_COLUMNS) {
        awaitColumns(opened, streamSchema);
      }
      MissingColumns.addTo(opened, streamSchema, evolution);
      Dataset dataset = opened.dataset();
      return new TargetTable(
          FieldIds.schemaOf(dataset),
          dataset.getLanceSchema(),
          dataset.getLanceFileFormatVersion(),
          VersionMark.of(dataset));
    }
  }

  /** Waits for subtask 0 to add the stream's columns, so that not every subtask races to. */
  private static void awaitColumns(OpenTable table, Schema streamSchema) {
    try {
      LanceRetries.poll(
          CREATOR_WAIT,
          () -> {
            table.moveToLatest();
            return MissingColumns.of(streamSchema, table.dataset().getSchema());
          },
          MissingColumns::isEmpty);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new LanceDatasetException(
          table.table().uri(), "interrupted while waiting for the stream's columns", e);
    }
  }

  private static Optional<OpenTable> awaitTable(TableRef table) {
    try {
      return LanceRetries.poll(
          CREATOR_WAIT, () -> OpenTable.latestIfExists(table), Optional::isPresent);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new LanceDatasetException(table.uri(), "interrupted while waiting for the table", e);
    }
  }
}
