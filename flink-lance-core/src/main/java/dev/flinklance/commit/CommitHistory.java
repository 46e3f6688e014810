package dev.flinklance.commit;

import dev.flinklance.dataset.LanceDatasetException;
import dev.flinklance.dataset.LanceErrors;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.apache.flink.annotation.Internal;
import org.lance.Dataset;
import org.lance.Transaction;
import org.lance.operation.Rewrite;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads commit stamps back from a table's versions, newest first. Uses {@code
 * checkoutVersion(v).readTransaction()}: in lance-core 7.0.0 {@code
 * DatasetDelta.listTransactions()} fails with an UnsatisfiedLinkError.
 */
@Internal
public final class CommitHistory {
  private static final Logger LOG = LoggerFactory.getLogger(CommitHistory.class);

  private CommitHistory() {}

  /** How far a sink run's commits got, as far as the table's history tells. */
  public sealed interface RunProgress {
    /** The newest commit of the run has sequence number {@code seq}. */
    record Landed(long seq, long version) implements RunProgress {}

    /** Nothing of the run is in the table. */
    record NothingLanded() implements RunProgress {}

    /** The history ended before an answer: versions cleaned up, or the walk's bound reached. */
    record Unknown(String why) implements RunProgress {}
  }

  /**
   * How far {@code run} got. Commits of one run land in sequence order, so the newest one found
   * answers for every committable of the run. The walk goes from the newest version down to {@code
   * afterVersion} (exclusive: the run cannot have committed before it started), reading at most
   * {@code maxVersions} versions, and stops at the first commit of the run.
   */
  public static RunProgress progressOf(
      Dataset latest, String run, long afterVersion, int maxVersions) {
    long newest = latest.version();
    long oldest = Math.max(afterVersion + 1, Math.max(1, newest - maxVersions + 1));
    for (long version = newest; version >= oldest; version--) {
      Optional<Map<String, String>> properties = propertiesAt(latest, version);
      if (properties.isEmpty()) {
        return new RunProgress.Unknown(
            String.format("version %d of %s is gone (cleaned up?)", version, latest.uri()));
      }
      Optional<CommitStamp> stamp = CommitStamp.from(properties.get());
      if (stamp.isPresent() && stamp.get().run().equals(run)) {
        return new RunProgress.Landed(stamp.get().runSeq(), version);
      }
    }
    if (oldest > afterVersion + 1 && oldest > 1) {
      return new RunProgress.Unknown(
          String.format(
              "read the newest %d versions of %s (option sink.commit.dedupe.max-versions)"
                  + " without reaching version %d, where the run started",
              maxVersions, latest.uri(), afterVersion));
    }
    LOG.debug("No commit of sink run {} in versions {}..{} of {}", run, oldest, newest, latest);
    return new RunProgress.NothingLanded();
  }

  /**
   * The version newer than {@code afterVersion} whose transaction is a rewrite (compaction) that
   * added any of {@code newDataFiles}. Lance's {@code commitCompaction} takes no transaction
   * properties, so a compaction commit is recognised by its new data files, whose names are unique.
   * A rewrite whose transaction Lance cannot read back ({@link
   * LanceErrors#isUnreadableTransaction}) is recognised by its version's fragments holding them.
   */
  public static OptionalLong findRewrite(
      Dataset latest, long afterVersion, Set<String> newDataFiles) {
    for (long version = latest.version(); version > afterVersion; version--) {
      try (Dataset at = latest.checkoutVersion(version)) {
        if (isRewriteAdding(at, newDataFiles)) {
          return OptionalLong.of(version);
        }
      } catch (Exception e) { // Lance also throws undeclared IOExceptions from native code
        if (LanceErrors.isNotFound(e)) {
          return OptionalLong.empty();
        }
        throw new LanceDatasetException(latest.uri(), "cannot read version " + version, e);
      }
    }
    return OptionalLong.empty();
  }

  private static boolean isRewriteAdding(Dataset at, Set<String> dataFiles) {
    Optional<Transaction> transaction;
    try {
      transaction = at.readTransaction();
    } catch (RuntimeException e) {
      if (!LanceErrors.isUnreadableTransaction(e)) {
        throw e;
      }
      return at.getFragments().stream()
          .flatMap(fragment -> fragment.metadata().getFiles().stream())
          .anyMatch(file -> dataFiles.contains(file.getPath()));
    }
    if (transaction.isEmpty()) {
      return false;
    }
    try (Transaction txn = transaction.get()) {
      return txn.operation() instanceof Rewrite rewrite && adds(rewrite, dataFiles);
    }
  }

  private static boolean adds(Rewrite rewrite, Set<String> dataFiles) {
    return rewrite.groups().stream()
        .flatMap(group -> group.newFragments().stream())
        .flatMap(fragment -> fragment.getFiles().stream())
        .anyMatch(file -> dataFiles.contains(file.getPath()));
  }

  /**
   * The transaction properties of a version; empty if the version no longer exists. A version whose
   * transaction Lance cannot read back is a compaction's ({@link
   * LanceErrors#isUnreadableTransaction}): it has none.
   */
  private static Optional<Map<String, String>> propertiesAt(Dataset latest, long version) {
    try (Dataset at = latest.checkoutVersion(version)) {
      Optional<Transaction> transaction = at.readTransaction();
      if (transaction.isEmpty()) {
        return Optional.of(Map.of());
      }
      try (Transaction txn = transaction.get()) {
        return Optional.of(txn.transactionProperties().orElse(Map.of()));
      }
    } catch (Exception e) { // Lance also throws undeclared IOExceptions from native code
      if (LanceErrors.isNotFound(e)) {
        return Optional.empty();
      }
      if (LanceErrors.isUnreadableTransaction(e)) {
        return Optional.of(Map.of());
      }
      throw LanceDatasetException.wrap(latest.uri(), "cannot read version " + version, e);
    }
  }
}
