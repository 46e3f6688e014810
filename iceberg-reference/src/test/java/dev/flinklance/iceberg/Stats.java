package dev.flinklance.iceberg;

import java.util.ArrayList;
import java.util.List;

/** Repeated measurements of one quantity: median (min-max), and ratios round by round. */
final class Stats {
  private final List<Double> values = new ArrayList<>();

  void add(double value) {
    values.add(value);
  }

  void addAll(List<? extends Number> more) {
    more.forEach(value -> add(value.doubleValue()));
  }

  boolean isEmpty() {
    return values.isEmpty();
  }

  double median() {
    List<Double> sorted = values.stream().sorted().toList();
    int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }

  double min() {
    return values.stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN);
  }

  double max() {
    return values.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
  }

  Stats ratioTo(Stats other) {
    Stats ratios = new Stats();
    for (int i = 0; i < Math.min(values.size(), other.values.size()); i++) {
      ratios.add(values.get(i) / other.values.get(i));
    }
    return ratios;
  }

  /** Median (min-max), each formatted as {@code number}; "-" without measurements. */
  String format(String number) {
    return isEmpty()
        ? "-"
        : String.format(number + " (" + number + "-" + number + ")", median(), min(), max());
  }
}
