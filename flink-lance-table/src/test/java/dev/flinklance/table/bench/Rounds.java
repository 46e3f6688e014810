package dev.flinklance.table.bench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs a benchmark's measurements: one warm-up round, then {@code repetitions} rounds that run
 * every measurement in turn, so that background load on a shared machine spreads over all of them;
 * the median of each.
 */
final class Rounds {

  /** One timed run. */
  interface Measurement {
    double seconds() throws Exception;
  }

  private Rounds() {}

  static Map<String, Double> medians(Map<String, Measurement> measurements, int repetitions)
      throws Exception {
    Map<String, List<Double>> seconds = new LinkedHashMap<>();
    for (int round = 0; round <= repetitions; round++) {
      for (Map.Entry<String, Measurement> measurement : measurements.entrySet()) {
        double time = measurement.getValue().seconds();
        if (round > 0) {
          seconds.computeIfAbsent(measurement.getKey(), k -> new ArrayList<>()).add(time);
        }
      }
    }
    Map<String, Double> medians = new LinkedHashMap<>();
    seconds.forEach(
        (what, times) -> {
          Collections.sort(times);
          medians.put(what, times.get(times.size() / 2));
        });
    return medians;
  }
}
