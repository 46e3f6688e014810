package dev.flinklance.commit;

import dev.flinklance.dataset.LanceErrors;
import dev.flinklance.dataset.LanceDatasetException;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.lance.Dataset;
import org.lance.Transaction;
import org.lance.operation.Rewrite;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads commit stamps back from the table's versions, newest first. Uses {@code
 * checkoutVersion(v).readTransaction()}: in lance-core 7.0.0 {@code
 * DatasetDelta.listTransactions()} fails with an UnsatisfiedLinkError.
 */
public final class CommitHistory {
  private static final Logger LOG = LoggerFactory.getLogger(CommitHistory.class);

  private CommitHistory() {}

  /**
   * The checkpoint id of {@code commitUser}'s newest commit, looking at most {@code maxVersions}
   * versions back. Empty if none was found; a WARN says why when the search was cut short.
   */
  public static OptionalLong lastCheckpointOf(Dataset latest, String commitUser, int maxVersions) {
    long newest = latest.version();
    long oldest = Math.max(1, newest - maxVersions + 1);
    for (long version = newest; version >= oldest; version--) {
      Optional<Map<String, String>> properties = propertiesAt(latest, version);
      if (properties.isEmpty()) {
        LOG.warn(
            "Version {} of {} is gone (cleaned up?); no commit of commit user '{}' found in"
                + " versions {}..{}. Treating its pending commits as not yet committed.",
            version,
            latest.uri(),
            commitUser,
            version + 1,
            newest);
        return OptionalLong.empty();
      }
      OptionalLong checkpoint = CommitStamp.checkpointOf(properties.get(), commitUser);
      if (checkpoint.isPresent()) {
        return checkpoint;
      }
    }
    if (oldest > 1) {
      LOG.warn(
          "No commit of commit user '{}' in the newest {} versions of {} (option"
              + " sink.commit.dedupe.max-versions). Treating its pending commits as not yet committed;"
              + " if one did land earlier, its rows are now duplicated.",
          commitUser,
          maxVersions,
          latest.uri());
    }
    return OptionalLong.empty();
  }

  /** True if a version newer than {@code afterVersion} carries exactly this stamp. */
  public static boolean containsCommitAfter(
      Dataset latest, long afterVersion, String commitUser, long checkpointId) {
    for (long version = latest.version(); version > afterVersion; version--) {
      Optional<Map<String, String>> properties = propertiesAt(latest, version);
      if (properties.isPresent()
          && CommitStamp.checkpointOf(properties.get(), commitUser).orElse(-1) == checkpointId) {
        return true;
      }
    }
    return false;
  }

  /**
   * The version newer than {@code afterVersion} whose transaction is a rewrite (compaction) that
   * added any of {@code newDataFiles}. Lance's {@code commitCompaction} takes no transaction
   * properties, so a compaction commit is recognised by its new data files, whose names are unique.
   */
  public static OptionalLong findRewrite(
      Dataset latest, long afterVersion, Set<String> newDataFiles) {
    for (long version = latest.version(); version > afterVersion; version--) {
      try (Dataset at = latest.checkoutVersion(version)) {
        Optional<Transaction> transaction = at.readTransaction();
        if (transaction.isEmpty()) {
          continue;
        }
        try (Transaction txn = transaction.get()) {
          if (txn.operation() instanceof Rewrite rewrite && adds(rewrite, newDataFiles)) {
            return OptionalLong.of(version);
          }
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

  private static boolean adds(Rewrite rewrite, Set<String> dataFiles) {
    return rewrite.groups().stream()
        .flatMap(group -> group.newFragments().stream())
        .flatMap(fragment -> fragment.getFiles().stream())
        .anyMatch(file -> dataFiles.contains(file.getPath()));
  }

  /** The transaction properties of a version; empty if the version no longer exists. */
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
      throw new LanceDatasetException(latest.uri(), "cannot read version " + version, e);
    }
  }
}
