package dev.flinklance.commit;

import dev.flinklance.access.VersionMark;
import dev.flinklance.errors.LanceCalls;
import java.util.List;
import org.apache.flink.annotation.Internal;
import org.lance.Dataset;
import org.lance.Version;

/**
 * The versions of a table by a point in time: what {@link #committedBy} finds, for time travel and
 * for a streaming read that starts at an instant.
 *
 * @param version the newest version committed by the time; null if none of the kept ones was
 * @param oldest the oldest version still kept; null for a table without versions
 */
@Internal
public record VersionsBy(VersionMark version, VersionMark oldest) {

  /**
   * The newest version of the table committed at or before {@code millis} (epoch milliseconds),
   * with its commit instant; empty if the first version still kept was committed after it, with the
   * id and instant of that oldest version for a message ({@link VersionsBy#oldest}).
   */
  public static VersionsBy committedBy(Dataset latest, long millis) {
    List<Version> versions =
        LanceCalls.call(latest.uri(), "cannot list the versions", latest::listVersions);
    long nanos = millis * 1_000_000;
    Version base = null;
    Version oldest = null;
    for (Version version : versions) {
      if (epochNanos(version) <= nanos && (base == null || version.getId() > base.getId())) {
        base = version;
      }
      if (oldest == null || version.getId() < oldest.getId()) {
        oldest = version;
      }
    }
    return new VersionsBy(
        base == null ? null : new VersionMark(base.getId(), epochNanos(base)),
        oldest == null ? null : new VersionMark(oldest.getId(), epochNanos(oldest)));
  }

  private static long epochNanos(Version version) {
    return version.getDataTime().toEpochSecond() * 1_000_000_000L + version.getDataTime().getNano();
  }
}
