package dev.flinklance.dataset;

/**
 * Recognises Lance failures by their message. Lance's Java binding raises most errors as
 * IllegalArgumentException/RuntimeException without a type per cause, so the message is all there
 * is; the phrases here are the ones lance-core 7.0.0 produces.
 */
public final class LanceErrors {

  private LanceErrors() {}

  public static boolean isNotFound(Throwable e) {
    String message = String.valueOf(e.getMessage());
    return message.contains("was not found") || message.startsWith("Not found");
  }

  /** Another transaction won the race for the version this commit wanted. */
  public static boolean isCommitConflict(Throwable e) {
    String message = String.valueOf(e.getMessage());
    return message.contains("Retryable commit conflict")
        || message.contains("incompatible with concurrent");
  }

  public static boolean isAlreadyExists(Throwable e) {
    return String.valueOf(e.getMessage()).contains("already exists");
  }
}
