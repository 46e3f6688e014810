package dev.flinklance.namespace;

import dev.flinklance.secrets.Secrets;
import org.apache.flink.annotation.PublicEvolving;

/**
 * A Lance Namespace could not be reached or did not answer in time; the message names the namespace
 * (implementation and URI or root) and never a credential. Errors the namespace itself answers with
 * (a table that does not exist, ...) are its own {@code LanceNamespaceException}s.
 */
@PublicEvolving
public class NamespaceException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public NamespaceException(NamespaceConnection namespace, String problem, Throwable cause) {
    super(
        Secrets.redact(
            namespace + ": " + problem + (cause == null ? "" : ": " + cause.getMessage())),
        Secrets.scrub(cause));
  }
}
