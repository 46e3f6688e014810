package dev.flinklance.compactor.sidefile;

import dev.flinklance.access.TableRef;
import dev.flinklance.store.StoragePaths;
import java.io.IOException;
import java.util.List;
import java.util.Optional;
import org.apache.flink.annotation.Internal;

/**
 * Files at a Lance table's root that hold spilled row-lineage. lance-core 7.0.0 reads them
 * (External row-id slices) but offers no way to write, list or delete plain files, so this talks to
 * the storage directly: local disk, or S3 (and S3-compatible servers) with the table's own storage
 * options.
 */
@Internal
public interface SideFiles extends AutoCloseable {
  /** Every side file's name starts with this; nothing else at a table's root does. */
  String PREFIX = "_rowids-";

  /** A side file as listed. */
  record Listed(String name, long lastModifiedMillis) {}

  /** Writes a new file at the table root; never overwrites. */
  void write(String name, byte[] bytes) throws IOException;

  byte[] read(String name, long offset, int length) throws IOException;

  /** Side files at the table root. */
  List<Listed> list() throws IOException;

  void delete(String name) throws IOException;

  @Override
  void close();

  /** Whether side files can be kept for the table at {@code uri}. */
  static boolean supports(String uri) {
    return switch (scheme(uri)) {
      case "file", "s3", "s3a" -> true;
      default -> false;
    };
  }

  private static String scheme(String uri) {
    int schemeEnd = uri.indexOf("://");
    return schemeEnd < 0 ? "file" : uri.substring(0, schemeEnd);
  }

  /**
   * The side files of {@code table}, or empty if its storage is not supported. Never throws: if the
   * storage client cannot be built, every call of the side files fails with the reason (a compactor
   * must not fail the job it runs in).
   */
  static Optional<SideFiles> of(TableRef table) {
    String uri = table.uri();
    try {
      switch (scheme(uri)) {
        case "file":
          return Optional.of(new LocalSideFiles(StoragePaths.localPath(uri)));
        case "s3":
        case "s3a":
          return Optional.of(S3SideFiles.of(StoragePaths.objectKey(uri), table.storageOptions()));
        default:
          return Optional.empty();
      }
    } catch (RuntimeException e) {
      return Optional.of(new UnreachableSideFiles(uri, e));
    }
  }
}
