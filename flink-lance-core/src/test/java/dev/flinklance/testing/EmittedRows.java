package dev.flinklance.testing;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Rows a MiniCluster job's operator saw, by a per-test token: operators run in the test's JVM and
 * record into a static map; the test reads a copy while the job runs.
 */
public final class EmittedRows {
  private static final Map<String, List<String>> ROWS = new ConcurrentHashMap<>();

  private EmittedRows() {}

  public static void add(String token, String row) {
    ROWS.computeIfAbsent(token, t -> Collections.synchronizedList(new ArrayList<>())).add(row);
  }

  /** The rows recorded under {@code token} so far, in the order they came. */
  public static List<String> of(String token) {
    List<String> rows = ROWS.getOrDefault(token, List.of());
    synchronized (rows) {
      return List.copyOf(rows);
    }
  }
}
