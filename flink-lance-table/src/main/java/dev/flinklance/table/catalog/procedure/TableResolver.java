package dev.flinklance.table.catalog.procedure;

import dev.flinklance.access.TableRef;
import org.apache.flink.annotation.Internal;

/** How a procedure finds the Lance table a name ({@code db.t}, or {@code t}) refers to. */
@Internal
@FunctionalInterface
public interface TableResolver {

  /**
   * @throws org.apache.flink.table.api.ValidationException if the name is invalid or the table does
   *     not exist
   */
  TableRef table(String name);
}
