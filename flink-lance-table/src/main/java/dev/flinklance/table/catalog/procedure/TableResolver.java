package dev.flinklance.table.catalog.procedure;

import dev.flinklance.access.TableRef;
import java.util.Map;
import org.apache.flink.annotation.Internal;

/** How a procedure finds the Lance table a name ({@code db.t}, or {@code t}) refers to. */
@Internal
public interface TableResolver {

  /**
   * @throws org.apache.flink.table.api.ValidationException if the name is invalid or the table does
   *     not exist
   */
  TableRef table(String name);

  /**
   * The connector options the catalog keeps for the table, as its latest version holds them; how
   * they are kept is the catalog's business.
   */
  Map<String, String> storedOptions(TableRef table);
}
