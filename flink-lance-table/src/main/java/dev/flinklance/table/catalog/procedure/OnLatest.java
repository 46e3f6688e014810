package dev.flinklance.table.catalog.procedure;

import dev.flinklance.access.OpenTable;
import dev.flinklance.access.TableRef;
import dev.flinklance.errors.LanceCalls;
import java.util.function.Function;
import org.lance.Dataset;

/** Runs a procedure's work on the latest version of a table, with Lance errors naming it. */
final class OnLatest {

  private OnLatest() {}

  /**
   * @param action what the work does, for the error message ("cannot create tag 'x'")
   */
  static <T> T apply(TableRef table, String action, Function<Dataset, T> work) {
    return LanceCalls.call(
        table.uri(),
        "cannot " + action,
        () -> {
          try (OpenTable latest = OpenTable.latest(table)) {
            return work.apply(latest.dataset());
          }
        });
  }
}
