package dev.flinklance.compactor.commit;

import dev.flinklance.compactor.lineage.SideFileGc;
import dev.flinklance.consumer.ConsumerRegistration;
import dev.flinklance.consumer.Consumers;
import dev.flinklance.files.TableFiles;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import org.apache.flink.annotation.Internal;
import org.apache.flink.annotation.VisibleForTesting;
import org.lance.Dataset;
import org.lance.cleanup.CleanupPolicy;
import org.lance.cleanup.RemovalStats;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lance cleanup of old versions, then GC of the side files they alone referenced. Versions a live
 * streaming read registered as a consumer still needs ({@link Consumers}) are kept: the cleanup
 * removes only versions older than {@code olderThan} AND older than every live registration's
 * version. Expired registrations are ignored, and deleted.
 */
@Internal
public final class VersionCleanup {
  private static final Logger LOG = LoggerFactory.getLogger(VersionCleanup.class);

  private final Duration olderThan;
  private final Duration sideFileMinAge;
  private final Optional<TableFiles> files;

  public VersionCleanup(Duration olderThan, Duration sideFileMinAge, Optional<TableFiles> files) {
    this.olderThan = olderThan;
    this.sideFileMinAge = sideFileMinAge;
    this.files = files;
  }

  /**
   * @return how many side files were deleted
   */
  public int run(Dataset dataset) throws IOException {
    return run(dataset, System.currentTimeMillis());
  }

  @VisibleForTesting
  int run(Dataset dataset, long nowMillis) throws IOException {
    dataset.checkoutLatest();
    CleanupPolicy.Builder policy =
        CleanupPolicy.builder()
            .withBeforeTimestampMillis(nowMillis - olderThan.toMillis())
            .withErrorIfTaggedOldVersions(false);
    Optional<ConsumerRegistration> oldest = oldestLiveConsumer(dataset, nowMillis);
    oldest.ifPresent(
        consumer -> {
          policy.withBeforeVersion(consumer.version());
          LOG.info(
              "Cleanup of {} keeps version {} and later: consumer '{}' needs them (registered"
                  + " until {})",
              dataset.uri(),
              consumer.version(),
              consumer.consumerId(),
              Instant.ofEpochMilli(consumer.heartbeatMillis() + consumer.expirationMillis()));
        });
    RemovalStats removed = dataset.cleanupWithPolicy(policy.build());
    LOG.info(
        "Cleaned up {} versions of {} older than {} ({} data files, {} bytes)",
        removed.getOldVersions(),
        dataset.uri(),
        olderThan,
        removed.getDataFilesRemoved(),
        removed.getBytesRemoved());
    if (files.isEmpty()) {
      return 0;
    }
    List<String> deleted = SideFileGc.collect(dataset, files.get(), sideFileMinAge, nowMillis);
    return deleted.size();
  }

  /**
   * The live registration with the oldest version; expired ones are deleted (each read again just
   * before, so a read that registered since keeps it).
   */
  private Optional<ConsumerRegistration> oldestLiveConsumer(Dataset dataset, long nowMillis)
      throws IOException {
    if (files.isEmpty()) {
      return Optional.empty(); // no storage for registrations: no read could register
    }
    Consumers consumers = new Consumers(files.get());
    List<ConsumerRegistration> live = new ArrayList<>();
    for (ConsumerRegistration registration : consumers.list()) {
      if (!registration.expired(nowMillis)) {
        live.add(registration);
      } else if (consumers.deleteIfExpired(registration.consumerId(), nowMillis)) {
        LOG.info(
            "Deleted the expired registration of consumer '{}' of {} (version {}, last written"
                + " at {}, expired after {})",
            registration.consumerId(),
            dataset.uri(),
            registration.version(),
            Instant.ofEpochMilli(registration.heartbeatMillis()),
            Duration.ofMillis(registration.expirationMillis()));
      }
    }
    return live.stream().min(Comparator.comparingLong(ConsumerRegistration::version));
  }
}
