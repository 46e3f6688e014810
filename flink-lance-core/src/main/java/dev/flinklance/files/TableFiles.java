package dev.flinklance.files;

import dev.flinklance.access.TableRef;
import dev.flinklance.store.StoragePaths;
import java.io.IOException;
import java.util.List;
import java.util.Optional;
import org.apache.flink.annotation.Internal;

/**
 * Files beside a Lance table's own, under its root, that Lance does not manage: the compactor's
 * spilled row-lineage ({@code _rowids-*}) and the streaming readers' registrations ({@code
 * _consumers/}). lance-core 7.0.0 offers no way to write, list or delete plain files, so this talks
 * to the storage directly: local disk, or S3 (and S3-compatible servers) with the table's own
 * storage options. A name is a path relative to the table's root, {@code /}-separated.
 */
@Internal
public interface TableFiles extends AutoCloseable {
  /** A file as listed: its name relative to the table's root. */
  record Listed(String name, long lastModifiedMillis) {}

  /** Writes a new file; never overwrites. */
  void write(String name, byte[] bytes) throws IOException;

  /** Writes a file whole, replacing what was there: a reader sees the old or the new bytes. */
  void replace(String name, byte[] bytes) throws IOException;

  byte[] read(String name, long offset, int length) throws IOException;

  /** The whole file, or empty if there is none. */
  Optional<byte[]> read(String name) throws IOException;

  /**
   * The files whose names start with {@code prefix}, in its directory (not below: a prefix ending
   * in {@code /} lists that directory).
   */
  List<Listed> list(String prefix) throws IOException;

  void delete(String name) throws IOException;

  @Override
  void close();

  /** Whether files can be kept beside the table at {@code uri}. */
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
   * The files beside {@code table}, or empty if its storage is not supported. Never throws: if the
   * storage client cannot be built, every call fails with the reason (a compactor must not fail the
   * job it runs in).
   */
  static Optional<TableFiles> of(TableRef table) {
    String uri = table.uri();
    try {
      switch (scheme(uri)) {
        case "file":
          return Optional.of(new LocalTableFiles(StoragePaths.localPath(uri)));
        case "s3":
        case "s3a":
          return Optional.of(S3TableFiles.of(StoragePaths.objectKey(uri), table.storageOptions()));
        default:
          return Optional.empty();
      }
    } catch (RuntimeException e) {
      return Optional.of(new UnreachableTableFiles(uri, e));
    }
  }
}
