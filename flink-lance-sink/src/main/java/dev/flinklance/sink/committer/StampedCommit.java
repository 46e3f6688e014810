package dev.flinklance.sink.committer;

import dev.flinklance.access.TableRef;
import dev.flinklance.access.VersionMark;
import dev.flinklance.errors.LanceCalls;
import dev.flinklance.errors.LanceErrors.Kind;
import dev.flinklance.errors.LanceRetries;
import dev.flinklance.key.PrimaryKey;
import dev.flinklance.key.RowKey;
import dev.flinklance.schema.FieldIds;
import dev.flinklance.sink.keys.KeyFiles;
import java.io.Serializable;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import org.lance.CommitBuilder;
import org.lance.Dataset;
import org.lance.Transaction;
import org.lance.operation.Append;
import org.lance.operation.Operation;
import org.lance.operation.Overwrite;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** One stamped Lance transaction: the only place the sink writes a table version. */
class StampedCommit implements Serializable {
  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(StampedCommit.class);

  private final TableRef table;
  private final int maxConflictRetries;
  private final PrimaryKey key;
  private final KeyFiles keyFiles;

  /**
   * @param key the rows' primary key, or null for a sink that appends
   */
  StampedCommit(TableRef table, int maxConflictRetries, PrimaryKey key) {
    this.table = table;
    this.maxConflictRetries = maxConflictRetries;
    this.key = key;
    this.keyFiles = new KeyFiles(table);
  }

  /**
   * The table version a commit made.
   *
   * @param update for an upsert, the Update that landed
   */
  record Committed(Dataset dataset, Optional<KeyedUpdate> update) {}

  /**
   * Commits on top of {@code current}; Lance rebases over versions committed concurrently, retrying
   * up to {@code maxConflictRetries} times on a race. An upsert that conflicts with a concurrent
   * change of the fragments it deletes from (a compaction, a delete) is planned again on the newest
   * version, as often.
   */
  Committed commit(Dataset current, LanceCommittable committable) {
    if (!committable.upserts()) {
      return new Committed(
          commit(current, operationOf(current, committable), committable), Optional.empty());
    }
    List<RowKey> keys = keyFiles.read(committable.removedKeys());
    Dataset[] base = {current};
    try {
      return LanceRetries.callAtOnce(
          maxConflictRetries,
          EnumSet.of(Kind.CONFLICT),
          () -> {
            KeyedUpdate update = plan(base[0], committable, keys);
            return new Committed(
                commit(base[0], update.operation(), committable), Optional.of(update));
          },
          (conflict, retry, delay) -> {
            LOG.info(
                "{} conflicted with a concurrent change of {} at attempt {}; planning it again on"
                    + " the newest version",
                committable,
                table,
                retry);
            Dataset newest = newest(base[0]);
            if (base[0] != current) {
              base[0].close();
            }
            base[0] = newest;
          });
    } finally {
      if (base[0] != current) {
        base[0].close();
      }
    }
  }

  /** The Update of an upsert on {@code base}'s version. */
  KeyedUpdate plan(Dataset base, LanceCommittable committable, List<RowKey> keys) {
    return KeyedUpdate.plan(base, key, committable, keys);
  }

  /** The key files of a commit that landed are no longer needed; a replay reads none. */
  void landed(LanceCommittable committable) {
    keyFiles.delete(committable.removedKeys());
  }

  /** Removes key files that no commit will read ({@link KeyFiles#ORPHAN_AGE}). */
  void removeOrphanedKeyFiles() {
    if (key != null) {
      keyFiles.deleteOrphans(System.currentTimeMillis());
    }
  }

  void close() {
    keyFiles.close();
  }

  /** The newest version of {@code base}'s table; never a table recreated at its URI. */
  private Dataset newest(Dataset base) {
    Dataset newest =
        LanceCalls.call(
            table.uri(),
            "cannot open the newest version",
            () -> base.checkoutVersion(base.latestVersion()));
    return VersionMark.of(base).sameTable(newest);
  }

  private Dataset commit(Dataset base, Operation operation, LanceCommittable committable) {
    return LanceCalls.call(
        table.uri(),
        "cannot commit checkpoint " + committable.checkpointId(),
        () -> {
          try (Transaction transaction =
              new Transaction.Builder()
                  .readVersion(base.version())
                  .operation(operation)
                  .transactionProperties(committable.stamp().toProperties())
                  .build()) {
            return new CommitBuilder(base)
                .writeParams(table.storageOptions())
                .maxRetries(maxConflictRetries)
                .execute(transaction);
          }
        });
  }

  private static Operation operationOf(Dataset current, LanceCommittable committable) {
    if (committable.overwrite()) {
      return Overwrite.builder()
          .fragments(committable.fragments())
          .schema(FieldIds.schemaOf(current))
          .build();
    }
    return Append.builder().fragments(committable.fragments()).build();
  }
}
