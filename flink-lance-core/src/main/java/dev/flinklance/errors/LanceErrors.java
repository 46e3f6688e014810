package dev.flinklance.errors;

import java.util.List;
import java.util.regex.Pattern;
import org.apache.flink.annotation.Internal;

/**
 * Recognises Lance failures by their message. Lance's Java binding raises most errors as
 * IllegalArgumentException/RuntimeException without a type per cause, so the message is all there
 * is; the phrases here are the ones lance-core 7.0.0 produces.
 */
@Internal
public final class LanceErrors {
  /**
   * A version's manifest gone between listing and reading it: the table is being dropped (or the
   * version cleaned up) while it is opened. Lance then reports an I/O error on the object.
   */
  private static final Pattern MISSING_MANIFEST =
      Pattern.compile("Object at location \\S*_versions/\\d+\\.manifest not found");

  private LanceErrors() {}

  /** What a retry can do about a failure; the one classification every retry follows. */
  public enum Kind {
    /** May pass (a network or object-store error): retried with backoff. */
    TRANSIENT,
    /** Another transaction won the race: retried at once on the newest version. */
    CONFLICT,
    /** No retry can fix it: never retried. */
    PERMANENT
  }

  /**
   * The kind of a failure: permanent if it is a {@link PermanentDatasetException} or Lance's
   * message says so, a conflict if Lance says so, transient otherwise.
   */
  public static Kind kindOf(Throwable e) {
    if (e instanceof PermanentDatasetException || isPermanent(e)) {
      return Kind.PERMANENT;
    }
    return isCommitConflict(e) ? Kind.CONFLICT : Kind.TRANSIENT;
  }

  public static boolean isNotFound(Throwable e) {
    if (e instanceof org.lance.namespace.errors.TableNotFoundException) {
      return true; // the table's namespace does not know it (any more)
    }
    String message = String.valueOf(e.getMessage());
    return message.contains("was not found")
        || message.startsWith("Not found")
        || MISSING_MANIFEST.matcher(message).find();
  }

  /** Another transaction won the race for the version this commit wanted. */
  public static boolean isCommitConflict(Throwable e) {
    String message = String.valueOf(e.getMessage());
    return message.contains("Retryable commit conflict")
        || message.contains("incompatible with concurrent");
  }

  /**
   * lance-core 7.0.0 cannot read back the transaction of a compaction that rewrote an index (a
   * Rewrite with rewritten indexes): its JNI layer calls a Java constructor with the wrong
   * signature. Such a version is a Rewrite, which never carries a sink's stamp.
   */
  public static boolean isUnreadableTransaction(Throwable e) {
    return String.valueOf(e.getMessage())
        .contains("Invalid number or type of arguments passed to java method");
  }

  public static boolean isAlreadyExists(Throwable e) {
    return String.valueOf(e.getMessage()).contains("already exists");
  }

  /**
   * Phrases of failures that stay: the operating system refusing a path, an object store refusing
   * the credentials or not knowing the bucket, Lance rejecting its input.
   */
  private static final List<String> PERMANENT =
      List.of(
          "No such file or directory (os error 2)",
          "Operation not permitted (os error 1)",
          "Permission denied (os error 13)",
          "Not a directory (os error 20)",
          "Read-only file system (os error 30)",
          "Unknown storage format",
          "Invalid user input",
          "NoSuchBucket",
          "InvalidAccessKeyId",
          "SignatureDoesNotMatch",
          "AccessDenied");

  /** Whether a Lance failure (anywhere in the cause chain) is one that no retry can fix. */
  public static boolean isPermanent(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      String message = String.valueOf(t.getMessage());
      if (PERMANENT.stream().anyMatch(message::contains)) {
        return true;
      }
    }
    return false;
  }
}
