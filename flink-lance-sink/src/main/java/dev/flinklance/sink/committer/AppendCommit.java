package dev.flinklance.sink.committer;
import dev.flinklance.commit.CommitStamp;

import dev.flinklance.dataset.LanceDataset;
import dev.flinklance.dataset.LanceDatasetException;
import java.io.Serializable;
import org.lance.CommitBuilder;
import org.lance.Dataset;
import org.lance.Transaction;
import org.lance.operation.Append;

/** One stamped Lance Append transaction: the only place the sink writes a table version. */
class AppendCommit implements Serializable {
  private static final long serialVersionUID = 1L;

  private final LanceDataset table;
  private final int maxConflictRetries;

  AppendCommit(LanceDataset table, int maxConflictRetries) {
    this.table = table;
    this.maxConflictRetries = maxConflictRetries;
  }

  /**
   * Commits on top of {@code current}; Lance rebases an Append over versions committed
   * concurrently, retrying up to {@code maxConflictRetries} times on a race.
   *
   * @return the table at the new version
   */
  Dataset commit(Dataset current, LanceCommittable committable) {
    try (Transaction transaction =
        new Transaction.Builder()
            .readVersion(current.version())
            .operation(Append.builder().fragments(committable.fragments()).build())
            .transactionProperties(CommitStamp.of(
                    committable.commitUser(), committable.checkpointId(), committable.jobId()))
            .build()) {
      return new CommitBuilder(current)
          .writeParams(table.storageOptions())
          .maxRetries(maxConflictRetries)
          .execute(transaction);
    } catch (Exception e) { // Lance also throws undeclared IOExceptions from native code
      throw new LanceDatasetException(
          table.uri(), "cannot commit checkpoint " + committable.checkpointId(), e);
    }
  }
}
