package dev.flinklance.access;

import java.io.Serializable;
import org.apache.flink.annotation.Internal;

/**
 * The byte limits of the caches of the Lance session a table's handles share in a JVM ({@link
 * SharedSessions}): the metadata cache (manifests, deletion files, the metadata of every data file
 * read) and the index cache (index pages and partitions). Handles a job keeps open (a committer's,
 * a followed table's) move to each new version, so the caches fill with the metadata of each
 * version and data file they ever read: with Lance's defaults, 1 GiB and 6 GiB, and a session per
 * handle, the 60-minute soak's long-lived TaskManager grew by about 500 MB an hour (issue 32), in
 * native memory that Flink's memory model does not count. A job sets them with {@link
 * LanceDatasetOptions#METADATA_CACHE_SIZE} and {@link LanceDatasetOptions#INDEX_CACHE_SIZE}.
 *
 * @param metadataBytes the metadata cache's limit
 * @param indexBytes the index cache's limit
 */
@Internal
public record SessionCaches(long metadataBytes, long indexBytes) implements Serializable {
  /**
   * The connector's limits: metadata for thousands of data files, and a BTree key index of tens of
   * millions of keys or the IVF partitions of a few million vectors.
   */
  public static final SessionCaches DEFAULT = new SessionCaches(64L << 20, 512L << 20);

  /** Lance's own limits (lance-core 7.0.0), for comparison. */
  public static final SessionCaches LANCE_DEFAULTS = new SessionCaches(1L << 30, 6L << 30);

  public SessionCaches {
    if (metadataBytes <= 0 || indexBytes <= 0) {
      throw new IllegalArgumentException(
          "cache limits must be positive, got " + metadataBytes + " and " + indexBytes);
    }
  }
}
