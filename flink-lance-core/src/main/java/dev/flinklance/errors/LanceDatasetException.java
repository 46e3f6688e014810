package dev.flinklance.errors;

import dev.flinklance.secrets.Secrets;
import org.apache.flink.annotation.PublicEvolving;

/**
 * A failure to reach, read, create or commit to a Lance table, naming the table's URI. As such it
 * may pass (a network error, an object store's hiccup): Flink restarts the job. Failures that
 * cannot pass are {@link PermanentDatasetException}s. Neither the message nor the cause chain
 * carries a credential (see {@link Secrets}).
 */
@PublicEvolving
public class LanceDatasetException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /**
   * Wraps a failure of a Lance call: permanent if Lance's message says so (see {@link
   * LanceErrors#isPermanent}), otherwise a failure a restart may fix.
   */
  public static LanceDatasetException wrap(String uri, String problem, Throwable cause) {
    return LanceErrors.isPermanent(cause)
        ? new PermanentDatasetException(uri, problem, cause)
        : new LanceDatasetException(uri, problem, cause);
  }

  public LanceDatasetException(String uri, String problem, Throwable cause) {
    super(
        Secrets.redact(
            String.format(
                "Lance table '%s': %s%s",
                uri, problem, cause == null ? "" : ": " + cause.getMessage())),
        Secrets.scrub(cause));
  }
}
