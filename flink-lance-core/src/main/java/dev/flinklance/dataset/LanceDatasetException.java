package dev.flinklance.dataset;

/**
 * A failure to reach, read, create or commit to a Lance table, naming the table's URI. Neither the
 * message nor the cause chain carries a credential (see {@link Secrets}).
 */
public class LanceDatasetException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public LanceDatasetException(String uri, String problem, Throwable cause) {
    super(
        Secrets.redact(
            String.format(
                "Lance table '%s': %s%s",
                uri, problem, cause == null ? "" : ": " + cause.getMessage())),
        Secrets.scrub(cause));
  }
}
