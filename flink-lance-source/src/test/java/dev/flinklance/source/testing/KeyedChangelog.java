package dev.flinklance.source.testing;

import dev.flinklance.testing.LanceTestTables;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The test oracle of a changelog read of a table whose rows have unique ids: the changes, applied
 * in the order they came to an empty table, must give the table. Strict per key: a retraction (-D,
 * -U) must find exactly the row it retracts, an addition (+I, +U) a key that is not there, so a
 * key's changes out of order (a +U before its -U) are caught, not just a wrong end state.
 *
 * <p>Changes are strings {@code "+I[id, rest]"}.
 */
public final class KeyedChangelog {
  private final Map<Long, String> rows = new TreeMap<>();
  private final List<String> violations = new ArrayList<>();
  private int applied;

  public KeyedChangelog apply(List<String> changes) {
    changes.forEach(this::apply);
    return this;
  }

  public void apply(String change) {
    applied++;
    String kind = change.substring(0, 2);
    String image = change.substring(2);
    long id = idOf(image);
    if (kind.startsWith("-")) {
      String present = rows.remove(id);
      if (!image.equals(present)) {
        violations.add(change + " retracts " + present);
      }
    } else {
      String present = rows.put(id, image);
      if (present != null) {
        violations.add(change + " adds to " + present);
      }
    }
  }

  /** How many changes were applied. */
  public int appliedCount() {
    return applied;
  }

  /** The rows, as {@code "[id, rest]"}, in id order. */
  public List<String> rows() {
    return List.copyOf(rows.values());
  }

  public List<String> violations() {
    return List.copyOf(violations);
  }

  /** The rows of the table at {@code uri} as its changelog gives them, in id order. */
  public static List<String> tableRows(String uri) {
    return LanceTestTables.readColumns(uri, List.of("id", "name")).stream()
        .sorted((a, b) -> Long.compare((Long) a.get(0), (Long) b.get(0)))
        .map(row -> image((Long) row.get(0), row.get(1).toString()))
        .toList();
  }

  /** {@code "[id, rest]"} of a row of the table, as the changes show it. */
  public static String image(long id, String rest) {
    return "[" + id + ", " + rest + "]";
  }

  private static long idOf(String image) {
    return Long.parseLong(image.substring(1, image.indexOf(',')));
  }
}
