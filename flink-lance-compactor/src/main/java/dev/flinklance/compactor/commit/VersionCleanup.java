package dev.flinklance.compactor.commit;

import dev.flinklance.compactor.lineage.SideFileGc;
import dev.flinklance.compactor.sidefile.SideFiles;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.apache.flink.annotation.Internal;
import org.lance.Dataset;
import org.lance.cleanup.CleanupPolicy;
import org.lance.cleanup.RemovalStats;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Lance cleanup of old versions, then GC of the side files they alone referenced. */
@Internal
public final class VersionCleanup {
  private static final Logger LOG = LoggerFactory.getLogger(VersionCleanup.class);

  private final Duration olderThan;
  private final Duration sideFileMinAge;
  private final Optional<SideFiles> sideFiles;

  public VersionCleanup(
      Duration olderThan, Duration sideFileMinAge, Optional<SideFiles> sideFiles) {
    this.olderThan = olderThan;
    this.sideFileMinAge = sideFileMinAge;
    this.sideFiles = sideFiles;
  }

  /**
   * @return how many side files were deleted
   */
  public int run(Dataset dataset) throws IOException {
    dataset.checkoutLatest();
    long now = System.currentTimeMillis();
    RemovalStats removed =
        dataset.cleanupWithPolicy(
            CleanupPolicy.builder()
                .withBeforeTimestampMillis(now - olderThan.toMillis())
                .withErrorIfTaggedOldVersions(false)
                .build());
    LOG.info(
        "Cleaned up {} versions of {} older than {} ({} data files, {} bytes)",
        removed.getOldVersions(),
        dataset.uri(),
        olderThan,
        removed.getDataFilesRemoved(),
        removed.getBytesRemoved());
    if (sideFiles.isEmpty()) {
      return 0;
    }
    List<String> deleted = SideFileGc.collect(dataset, sideFiles.get(), sideFileMinAge, now);
    return deleted.size();
  }
}
