package dev.flinklance.commit;

import dev.flinklance.errors.LanceDatasetException;
import dev.flinklance.errors.LanceErrors;
import java.util.Map;
import java.util.Optional;
import org.apache.flink.annotation.Internal;
import org.lance.Dataset;

/**
 * How far a sink run's commits got, as far as the table's history tells: what the committer asks
 * before it commits a committable that may have landed already (after a failover, a restore, a
 * retried BATCH commit, a failed attempt).
 */
@Internal
public sealed interface RunProgress {

  /** The newest commit of the run has sequence number {@code seq}. */
  record Landed(long seq, long version) implements RunProgress {}

  /** Nothing of the run is in the table. */
  record NothingLanded() implements RunProgress {}

  /** The history ended before an answer: versions cleaned up, or the walk's bound reached. */
  record Unknown(String why) implements RunProgress {}

  /**
   * How far {@code run} got. Commits of one run land in sequence order, so the newest one found
   * answers for every committable of the run. The walk goes from the newest version down to {@code
   * afterVersion} (exclusive: the run cannot have committed before it started), reading at most
   * {@code maxVersions} versions, and stops at the first commit of the run.
   */
  static RunProgress of(Dataset latest, String run, long afterVersion, int maxVersions) {
    long newest = latest.version();
    long oldest = Math.max(afterVersion + 1, Math.max(1, newest - maxVersions + 1));
    for (long version = newest; version >= oldest; version--) {
      Optional<Map<String, String>> properties = propertiesAt(latest, version);
      if (properties.isEmpty()) {
        return new Unknown(
            String.format("version %d of %s is gone (cleaned up?)", version, latest.uri()));
      }
      Optional<CommitStamp> stamp = CommitStamp.from(properties.get());
      if (stamp.isPresent() && stamp.get().run().equals(run)) {
        return new Landed(stamp.get().runSeq(), version);
      }
    }
    if (oldest > afterVersion + 1 && oldest > 1) {
      return new Unknown(
          String.format(
              "read the newest %d versions of %s (option sink.commit.dedupe.max-versions)"
                  + " without reaching version %d, where the run started",
              maxVersions, latest.uri(), afterVersion));
    }
    return new NothingLanded();
  }

  /** The transaction properties of a version; empty if the version no longer exists. */
  private static Optional<Map<String, String>> propertiesAt(Dataset latest, long version) {
    try (Dataset at = latest.checkoutVersion(version)) {
      return Optional.of(
          VersionTransaction.of(at).map(VersionTransaction::properties).orElse(Map.of()));
    } catch (Exception e) { // Lance also throws undeclared IOExceptions from native code
      if (LanceErrors.isNotFound(e)) {
        return Optional.empty();
      }
      throw LanceDatasetException.wrap(latest.uri(), "cannot read version " + version, e);
    }
  }
}
