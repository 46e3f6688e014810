package dev.flinklance.source;

import dev.flinklance.access.TableRef;
import dev.flinklance.access.VersionMark;
import dev.flinklance.arrow.read.LanceReadSchema;
import dev.flinklance.commit.VersionsBy;
import dev.flinklance.errors.LanceCalls;
import dev.flinklance.errors.LanceErrors;
import java.util.Optional;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.annotation.Internal;
import org.lance.Dataset;
import org.lance.Version;

/**
 * Opens the version a scan reads: a given version, a tag's version, or the latest; and the schemas
 * the read's planning checks against.
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
          try (BufferAllocator allocator = new RootAllocator();
              Dataset dataset = open(table, version, tag, allocator)) {
            return LanceReadSchema.of(dataset);
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
          try (BufferAllocator allocator = new RootAllocator();
              Dataset latest = table.open(allocator)) {
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
   * @param version the version to open, or null
   * @param tag the tag whose version to open (when {@code version} is null), or null for latest
   */
  public static Dataset open(TableRef table, Long version, String tag, BufferAllocator allocator) {
    if (version != null) {
      return table.open(allocator, version);
    }
    if (tag == null) {
      return table.open(allocator);
    }
    long tagged =
        LanceCalls.call(
            table.uri(),
            "cannot resolve tag '" + tag + "'",
            () -> {
              try (Dataset latest = table.open(allocator)) {
                return latest.tags().getVersion(tag);
              }
            });
    return table.open(allocator, tagged);
  }
}
