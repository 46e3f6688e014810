package dev.flinklance.sink.committer;

import dev.flinklance.dataset.LanceDataset;
import dev.flinklance.dataset.LanceDatasetException;
import java.io.Serializable;
import org.lance.CommitBuilder;
import org.lance.Dataset;
import org.lance.Transaction;
import org.lance.operation.Append;
import org.lance.operation.Operation;
import org.lance.operation.Overwrite;

/** One stamped Lance transaction: the only place the sink writes a table version. */
class StampedCommit implements Serializable {
  private static final long serialVersionUID = 1L;

  private final LanceDataset table;
  private final int maxConflictRetries;

  StampedCommit(LanceDataset table, int maxConflictRetries) {
    this.table = table;
    this.maxConflictRetries = maxConflictRetries;
  }

  /**
   * Commits on top of {@code current}; Lance rebases over versions committed concurrently, retrying
   * up to {@code maxConflictRetries} times on a race.
   *
   * @return the table at the new version
   */
  Dataset commit(Dataset current, LanceCommittable committable) {
    try (Transaction transaction =
        new Transaction.Builder()
            .readVersion(current.version())
            .operation(operationOf(current, committable))
            .transactionProperties(committable.stamp().toProperties())
            .build()) {
      return new CommitBuilder(current)
          .writeParams(table.storageOptions())
          .maxRetries(maxConflictRetries)
          .execute(transaction);
    } catch (Exception e) { // Lance also throws undeclared IOExceptions from native code
      throw LanceDatasetException.wrap(
          table.uri(), "cannot commit checkpoint " + committable.checkpointId(), e);
    }
  }

  private static Operation operationOf(Dataset current, LanceCommittable committable) {
    if (committable.overwrite()) {
      return Overwrite.builder()
          .fragments(committable.fragments())
          .schema(current.getSchema())
          .build();
    }
    return Append.builder().fragments(committable.fragments()).build();
  }
}
