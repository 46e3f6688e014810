package dev.flinklance.testing;

import java.util.ArrayList;
import java.util.List;

/**
 * Repeated measurements of one quantity, as the benchmarks print them: min, median and max, and
 * ratios round by round.
 */
public final class Spread {
  private final List<Double> values = new ArrayList<>();

  public void add(double value) {
    values.add(value);
  }

  public void addAll(List<? extends Number> more) {
    more.forEach(value -> add(value.doubleValue()));
  }

  /** The values in the order they were measured. */
  public List<Double> inOrder() {
    return List.copyOf(values);
  }

  public boolean isEmpty() {
    return values.isEmpty();
  }

  private List<Double> sorted() {
    List<Double> sorted = new ArrayList<>(values);
    sorted.sort(Double::compare);
    return sorted;
  }

  public double min() {
    return sorted().get(0);
  }

  public double median() {
    List<Double> sorted = sorted();
    int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }

  public double max() {
    return sorted().get(values.size() - 1);
  }

  /**
   * Ratios of this to {@code other} repetition by repetition (both measured in the same rounds):
   * their min, median and max show how far one round's ratio is from another's.
   */
  public Spread ratioTo(Spread other) {
    Spread ratios = new Spread();
    for (int i = 0; i < Math.min(values.size(), other.values.size()); i++) {
      ratios.add(values.get(i) / other.values.get(i));
    }
    return ratios;
  }

  /** "median (min-max)" with the given format for each number; "-" without measurements. */
  public String format(String number) {
    return isEmpty()
        ? "-"
        : String.format(number + " (" + number + "-" + number + ")", median(), min(), max());
  }
}
