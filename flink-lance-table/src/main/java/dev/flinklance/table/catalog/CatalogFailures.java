package dev.flinklance.table.catalog;

import dev.flinklance.secrets.Secrets;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.catalog.exceptions.CatalogException;

/**
 * The catalog's exceptions for failures of Lance, a namespace or an object store: every credential
 * masked in the message and the cause chain ({@link Secrets}). A service's error may echo what it
 * was sent, a namespace's header token or a signed URL, and Flink prints messages and causes as
 * they are.
 */
final class CatalogFailures {
  private CatalogFailures() {}

  static CatalogException catalog(String message, Throwable cause) {
    return new CatalogException(Secrets.redact(message), Secrets.scrub(cause));
  }

  /** Bad input: the cause's own message is the one to show. */
  static ValidationException invalid(Throwable cause) {
    return new ValidationException(Secrets.redact(cause.getMessage()), Secrets.scrub(cause));
  }
}
