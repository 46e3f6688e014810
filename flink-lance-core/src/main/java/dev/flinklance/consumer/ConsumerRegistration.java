package dev.flinklance.consumer;

import org.apache.flink.annotation.Internal;

/**
 * A streaming read's registration in its table: the oldest version it still needs, and until when
 * that holds.
 *
 * @param consumerId the read's {@code scan.consumer-id}
 * @param version the oldest version a restore of the read's last completed checkpoint reads: every
 *     version from it on is kept by this connector's cleanup
 * @param heartbeatMillis when the read last wrote it (the reader's clock)
 * @param expirationMillis how long after its heartbeat the registration holds: a read that stopped
 *     writing it (cancelled, abandoned) protects nothing after that
 */
@Internal
public record ConsumerRegistration(
    String consumerId, long version, long heartbeatMillis, long expirationMillis) {

  /** Whether the registration no longer holds at {@code nowMillis}. */
  public boolean expired(long nowMillis) {
    return nowMillis - heartbeatMillis >= expirationMillis;
  }
}
