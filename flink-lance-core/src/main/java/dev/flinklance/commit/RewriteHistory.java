package dev.flinklance.commit;

import dev.flinklance.commit.VersionChange.Kind;
import dev.flinklance.errors.LanceDatasetException;
import dev.flinklance.errors.LanceErrors;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.apache.flink.annotation.Internal;
import org.lance.Dataset;

/** A compaction's Rewrite in the table's history: what the compactor asks after a restore. */
@Internal
public final class RewriteHistory {
  private RewriteHistory() {}

  /**
   * The version newer than {@code afterVersion} whose transaction is a rewrite (compaction) that
   * added any of {@code newDataFiles}. Lance's {@code commitCompaction} takes no transaction
   * properties, so a compaction commit is recognised by its new data files, whose names are unique.
   * The walk goes oldest first: a rewrite Lance cannot read back is known only by the data files
   * its version holds ({@link VersionTransaction#rewrittenFiles}), which a later rewrite of other
   * fragments holds as well.
   */
  public static OptionalLong find(Dataset latest, long afterVersion, Set<String> newDataFiles) {
    for (long version = afterVersion + 1; version <= latest.version(); version++) {
      try (Dataset at = latest.checkoutVersion(version)) {
        Optional<VersionTransaction> transaction = VersionTransaction.of(at);
        if (transaction.isPresent()
            && transaction.get().kind() == Kind.REWRITE
            && transaction.get().rewrittenFiles().stream().anyMatch(newDataFiles::contains)) {
          return OptionalLong.of(version);
        }
      } catch (Exception e) { // Lance also throws undeclared IOExceptions from native code
        if (!LanceErrors.isNotFound(e)) {
          throw LanceDatasetException.wrap(latest.uri(), "cannot read version " + version, e);
        }
        // cleaned up: the rewrite, if it landed, is in a later version (or gone with it)
      }
    }
    return OptionalLong.empty();
  }
}
