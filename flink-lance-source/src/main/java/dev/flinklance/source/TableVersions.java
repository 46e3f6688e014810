package dev.flinklance.source;

import dev.flinklance.access.OpenTable;
import dev.flinklance.access.TableRef;
import dev.flinklance.access.VersionMark;
import dev.flinklance.arrow.read.LanceReadSchema;
import dev.flinklance.commit.VersionsBy;
import dev.flinklance.errors.LanceCalls;
import dev.flinklance.errors.LanceErrors;
import dev.flinklance.errors.PermanentDatasetException;
import dev.flinklance.errors.TableReplacedException;
import java.util.Optional;
import org.apache.flink.annotation.Internal;
import org.lance.Dataset;
import org.lance.Version;

/**
 * The versions a read reads: the schemas its planning checks against (of the pinned, tagged or
 * latest version, and of the oldest version a streaming read reads), and the failure of a read that
 * found another table at the URI.
 */
@Internal
public final class TableVersions {

  private TableVersions() {}

  /** The schema of the version a scan reads, as the scan produces it. */
  public static LanceReadSchema readSchema(TableRef table, Long version, String tag) {
    return LanceCalls.call(
        table.uri(),
        "cannot read the table's schema",
        () -> {
          try (OpenTable read = OpenTable.at(table, version, tag)) {
            return LanceReadSchema.of(read.dataset());
          }
        });
  }

  /**
   * The schema of the oldest version whose rows a read reads, given the schema of the version it
   * reads ({@link #readSchema}): that version itself, except for a streaming read started at a
   * version or an instant, which reads the versions after it (all of them, for a start before the
   * oldest version kept). Columns added later are missing there: a filter on them cannot go into a
   * scan of that version.
   */
  public static LanceReadSchema oldestReadSchema(LanceSourceConfig config, LanceReadSchema read) {
    StreamingRead streaming = config.streaming();
    if (streaming == null
        || streaming.startupMode() == StartupMode.FULL
        || streaming.startupMode() == StartupMode.LATEST) {
      return read;
    }
    TableRef table = config.dataset();
    return LanceCalls.callOr(
        table.uri(),
        "cannot read the schema of the version the streaming read starts after",
        () -> {
          try (OpenTable open = OpenTable.latest(table)) {
            Dataset latest = open.dataset();
            long start =
                streaming.startupMode() == StartupMode.VERSION
                    ? streaming.startupVersion()
                    : Optional.ofNullable(
                            VersionsBy.committedBy(latest, streaming.startupTimestampMillis())
                                .version())
                        .map(VersionMark::version)
                        .orElse(0L);
            if (start > latest.version()) {
              return read; // the job fails at its start, saying so
            }
            long oldest =
                start > 0
                    ? start
                    : latest.listVersions().stream().mapToLong(Version::getId).min().orElseThrow();
            try (Dataset at = latest.checkoutVersion(oldest)) {
              return LanceReadSchema.of(at);
            }
          }
        },
        LanceErrors::isNotFound, // cleaned up: the job fails at its start, saying so
        read);
  }

  /**
   * The failure of a read that met another table at the URI than the one it was reading: no change
   * of the new table continues the read, so it stops for good.
   */
  public static PermanentDatasetException replacedWhileRead(
      TableRef table, TableReplacedException e) {
    if (e.tableGone()) { // dropped: said as when opening
      return new PermanentDatasetException(table.uri(), "the table does not exist", null);
    }
    return new PermanentDatasetException(
        table.uri(),
        "the table was replaced while this job was reading it ("
            + e.evidence()
            + "). Start the job without its state (no savepoint) to read the new table",
        null);
  }

  /**
   * What keeps the versions a streaming read needs, for the failure of a read that found one of
   * them cleaned up: its consumer registration, which only this connector's cleanup honours.
   */
  public static String cleanupHint(StreamingRead streaming) {
    String id = streaming.consumerId();
    return id == null
        ? "register the read as a consumer ('scan.consumer-id') so that this connector's cleanup"
            + " (compaction.cleanup-older-than, the standalone job's --cleanup-older-than) keeps"
            + " every version it needs"
        : String.format(
            "the read is registered as consumer '%s' ('scan.consumer-id'), which this connector's"
                + " cleanup honours; another client's cleanup (LanceDB, Python) ignores it, and a"
                + " registration older than 'scan.consumer.expiration-time' protects nothing",
            id);
  }
}
