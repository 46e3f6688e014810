package dev.flinklance.errors;

import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.runtime.throwable.ThrowableAnnotation;
import org.apache.flink.runtime.throwable.ThrowableType;

/**
 * A failure no restart can fix: a path that cannot be created, access that is denied, a schema that
 * does not match the table, a table replaced under the job, an option Lance rejects. Flink fails
 * the job at once with this message instead of restarting it over and over.
 */
@PublicEvolving
@ThrowableAnnotation(ThrowableType.NonRecoverableError)
public class PermanentDatasetException extends LanceDatasetException {
  private static final long serialVersionUID = 1L;

  public PermanentDatasetException(String uri, String problem, Throwable cause) {
    super(uri, problem, cause);
  }
}
