package dev.flinklance.source.enumerator;

import dev.flinklance.access.TableRef;
import dev.flinklance.consumer.ConsumerRegistration;
import dev.flinklance.consumer.Consumers;
import dev.flinklance.files.TableFiles;
import java.io.IOException;
import java.time.Duration;
import java.util.TreeMap;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A streaming read's registration as a consumer ({@code scan.consumer-id}), kept by the enumerator.
 * What it registers is what a restore would read: the oldest version the read needed when the last
 * completed checkpoint was taken. A newer version (the live position) would let a cleanup remove
 * what a failover, which goes back to that checkpoint, reads again; a checkpoint that never
 * completes is never restored, so its position is registered only once it completes. The
 * registration is written on the enumerator's worker thread; a failed write is logged and the next
 * one tries again (the previous registration, older, still protects the read meanwhile).
 */
final class ConsumerProgress implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ConsumerProgress.class);

  private final SplitEnumeratorContext<?> context;
  private final TableRef table;
  private final String consumerId;
  private final Duration expiration;
  private final SourceMetrics metrics;

  /** The oldest needed version at each checkpoint taken and not yet completed. */
  private final TreeMap<Long, Long> taken = new TreeMap<>();

  private long registered = -1;
  private long writtenMillis;

  /** Opened on the worker thread; closed with the enumerator. */
  private volatile TableFiles files;

  ConsumerProgress(
      SplitEnumeratorContext<?> context,
      TableRef table,
      String consumerId,
      Duration expiration,
      SourceMetrics metrics) {
    this.context = context;
    this.table = table;
    this.consumerId = consumerId;
    this.expiration = expiration;
    this.metrics = metrics;
  }

  void checkpointTaken(long checkpointId, long oldestNeeded) {
    taken.put(checkpointId, oldestNeeded);
  }

  void checkpointCompleted(long checkpointId) {
    Long version = taken.get(checkpointId);
    taken.headMap(checkpointId, true).clear();
    if (version != null) {
      register(version);
    }
  }

  /** Writes the registration again if its last write is a quarter of its expiration time old. */
  void heartbeat() {
    if (registered >= 0 && heartbeatDue()) {
      register(registered);
    }
  }

  /** Registers {@code version}: where the read starts, or what a restore reads. */
  void register(long version) {
    if (version == registered && !heartbeatDue()) {
      return;
    }
    long now = System.currentTimeMillis();
    registered = version;
    writtenMillis = now;
    metrics.consumerVersion(version);
    ConsumerRegistration registration =
        new ConsumerRegistration(consumerId, version, now, expiration.toMillis());
    context.callAsync(
        () -> write(registration),
        (written, error) -> {
          if (error != null) {
            LOG.warn(
                "Cannot register consumer '{}' of {} at version {}; the next checkpoint tries"
                    + " again",
                consumerId,
                table,
                version,
                error);
          }
        });
  }

  private boolean heartbeatDue() {
    return System.currentTimeMillis() - writtenMillis >= expiration.toMillis() / 4;
  }

  private ConsumerRegistration write(ConsumerRegistration registration) throws IOException {
    if (files == null) {
      files =
          TableFiles.of(table)
              .orElseThrow(() -> new IOException("no consumer registrations at " + table));
    }
    new Consumers(files).register(registration);
    LOG.debug("Registered {} in {}", registration, table);
    return registration;
  }

  /** Leaves the registration in place: a job stopped with a savepoint is restored from it. */
  @Override
  public void close() {
    TableFiles open = files;
    if (open != null) {
      open.close();
    }
  }
}
