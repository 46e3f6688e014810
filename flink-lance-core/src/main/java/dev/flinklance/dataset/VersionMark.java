package dev.flinklance.dataset;

import java.time.Instant;
import java.time.ZonedDateTime;
import org.apache.flink.annotation.Internal;
import org.lance.Dataset;

/**
 * A version of a table and the instant it was committed. A table deleted and recreated at the same
 * URI has versions with the same numbers but other instants, so a mark tells the table it was taken
 * from apart from a replacement.
 *
 * @param version the version number; 0 marks "no table yet" and matches any table
 * @param epochNanos commit instant of that version
 */
@Internal
public record VersionMark(long version, long epochNanos) {
  public static final VersionMark NO_TABLE = new VersionMark(0, 0);

  /**
   * A table going back below a version is a replacement, which no restart undoes; it is only
   * concluded after rechecks, since a store can list a version directory without the manifests a
   * concurrent commit is putting (seen on an S3-compatible server under two writing jobs).
   */
  private static final int RECHECKS = 3;

  private static final long RECHECK_PAUSE_MS = 200;
  private static final long NOT_FOUND = -1;

  public static VersionMark of(Dataset dataset) {
    return new VersionMark(dataset.version(), epochNanos(dataset.getVersion().getDataTime()));
  }

  /**
   * Checks that the table behind {@code handle} still is the table this mark was taken from: its
   * versions did not go back below the mark, and the marked version, if it still exists, is the
   * same commit. A version removed by cleanup cannot be checked and is accepted.
   *
   * @throws TableReplacedException naming the URI if the table was replaced
   */
  public void verify(Dataset handle) {
    if (version == 0) {
      return;
    }
    long latest = latestVersion(handle);
    for (int recheck = 1; latest < version && recheck <= RECHECKS; recheck++) {
      pause(recheck);
      latest = latestVersion(handle);
    }
    if (latest == NOT_FOUND) {
      throw new TableReplacedException(handle.uri(), "there is no table at the URI any more");
    }
    if (latest < version) {
      throw new TableReplacedException(
          handle.uri(),
          String.format(
              "its latest version is %d, but this job already saw version %d", latest, version));
    }
    try (Dataset marked = handle.checkoutVersion(version)) {
      long actual = epochNanos(marked.getVersion().getDataTime());
      if (actual != epochNanos) {
        throw new TableReplacedException(
            handle.uri(),
            String.format(
                "version %d was committed at %s, but the version %d this job saw was committed at"
                    + " %s",
                version, marked.getVersion().getDataTime(), version, instant()));
      }
    } catch (TableReplacedException e) {
      throw e;
    } catch (Exception e) { // Lance also throws undeclared IOExceptions from native code
      if (!LanceErrors.isNotFound(e)) {
        throw LanceDatasetException.wrap(handle.uri(), "cannot read version " + version, e);
      }
    }
  }

  /** The latest version, or {@link #NOT_FOUND} if no version is listed. */
  private static long latestVersion(Dataset handle) {
    try {
      return handle.latestVersion();
    } catch (Exception e) { // Lance also throws undeclared IOExceptions from native code
      if (LanceErrors.isNotFound(e)) {
        return NOT_FOUND;
      }
      throw LanceDatasetException.wrap(handle.uri(), "cannot read the latest version", e);
    }
  }

  private static void pause(int recheck) {
    try {
      Thread.sleep(RECHECK_PAUSE_MS * recheck);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while checking the table's versions", e);
    }
  }

  private String instant() {
    return Instant.ofEpochSecond(0, epochNanos).toString();
  }

  private static long epochNanos(ZonedDateTime time) {
    return time.toEpochSecond() * 1_000_000_000L + time.getNano();
  }
}
