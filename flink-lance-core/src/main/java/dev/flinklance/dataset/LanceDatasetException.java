package dev.flinklance.dataset;

/** A failure to reach, read, create or commit to a Lance table, naming the table's URI. */
public class LanceDatasetException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public LanceDatasetException(String uri, String problem, Throwable cause) {
    super(
        String.format(
            "Lance table '%s': %s%s", uri, problem, cause == null ? "" : ": " + cause.getMessage()),
        cause);
  }
}
