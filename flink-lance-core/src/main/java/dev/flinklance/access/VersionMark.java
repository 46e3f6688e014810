package dev.flinklance.access;

import dev.flinklance.errors.LanceCalls;
import dev.flinklance.errors.LanceErrors;
import dev.flinklance.errors.LanceRetries;
import dev.flinklance.errors.TableReplacedException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import org.apache.flink.annotation.Internal;
import org.apache.flink.util.concurrent.RetryStrategy;
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
  private static final RetryStrategy RECHECKS =
      LanceRetries.backoff(3, Duration.ofMillis(200), Duration.ofMillis(800));

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
    long latest = recheckedLatestVersion(handle);
    if (latest == NOT_FOUND) {
      throw TableReplacedException.gone(handle.uri());
    }
    if (latest < version) {
      throw new TableReplacedException(
          handle.uri(),
          String.format(
              "its latest version is %d, but this job already saw version %d", latest, version));
    }
    Long actual = // null: cleaned up
        LanceCalls.callOr(
            handle.uri(),
            "cannot read version " + version,
            () -> {
              try (Dataset marked = handle.checkoutVersion(version)) {
                return epochNanos(marked.getVersion().getDataTime());
              }
            },
            LanceErrors::isNotFound,
            null);
    if (actual != null && actual != epochNanos) {
      throw new TableReplacedException(
          handle.uri(),
          String.format(
              "version %d was committed at %s, but the version %d this job saw was committed at"
                  + " %s",
              version, instant(actual), version, instant(epochNanos)));
    }
  }

  /**
   * {@code newer}, a version of the table at the URI opened after this mark was taken, if the table
   * still is the one this mark was taken from. Moving to a newer version must go through here: a
   * handle opened at the URI is whatever table is there now, and a check of the new handle against
   * its own mark proves nothing. The check runs after the open, so a table replaced at any moment
   * before it is caught.
   *
   * @throws TableReplacedException (closing {@code newer}) if the table was replaced
   */
  public Dataset sameTable(Dataset newer) {
    try {
      verify(newer);
      return newer;
    } catch (RuntimeException e) {
      newer.close();
      throw e;
    }
  }

  /** The latest version, or {@link #NOT_FOUND} if no version is listed. */
  private static long latestVersion(Dataset handle) {
    return LanceCalls.callOr(
        handle.uri(),
        "cannot read the latest version",
        handle::latestVersion,
        LanceErrors::isNotFound,
        NOT_FOUND);
  }

  /** The latest version, looked at again while it is below the mark. */
  private long recheckedLatestVersion(Dataset handle) {
    try {
      return LanceRetries.poll(RECHECKS, () -> latestVersion(handle), latest -> latest >= version);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while checking the table's versions", e);
    }
  }

  private static String instant(long epochNanos) {
    return Instant.ofEpochSecond(0, epochNanos).toString();
  }

  private static long epochNanos(ZonedDateTime time) {
    return time.toEpochSecond() * 1_000_000_000L + time.getNano();
  }
}
