package dev.flinklance.sink.bench;

import java.util.ArrayList;
import java.util.List;

/** Repeated measurements of one quantity: min, median and max, and ratios of medians. */
final class Spread {
  private final List<Double> values = new ArrayList<>();

  void add(double value) {
    values.add(value);
  }

  /** The values in the order they were measured. */
  List<Double> inOrder() {
    return List.copyOf(values);
  }

  boolean isEmpty() {
    return values.isEmpty();
  }

  private List<Double> sorted() {
    List<Double> sorted = new ArrayList<>(values);
    sorted.sort(Double::compare);
    return sorted;
  }

  double min() {
    return sorted().get(0);
  }

  double median() {
    List<Double> sorted = sorted();
    int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }

  double max() {
    return sorted().get(values.size() - 1);
  }

  /**
   * Ratios of this to {@code other} repetition by repetition (both measured in the same rounds):
   * their min, median and max show how far one round's ratio is from another's.
   */
  Spread ratioTo(Spread other) {
    Spread ratios = new Spread();
    for (int i = 0; i < Math.min(values.size(), other.values.size()); i++) {
      ratios.add(values.get(i) / other.values.get(i));
    }
    return ratios;
  }

  /** "median (min-max)" with the given format for each number. */
  String format(String number) {
    return String.format(number + " (" + number + "-" + number + ")", median(), min(), max());
  }
}
