package dev.flinklance.index;

import java.util.Locale;
import java.util.Optional;
import org.apache.flink.annotation.PublicEvolving;
import org.lance.index.DistanceType;

/**
 * How vectors are compared: by a nearest-neighbour search and by the index built for it. The
 * distance Lance reports (smaller is closer) is, for query q and vector v: L2, the squared
 * Euclidean distance; COSINE, 1 - cos(q, v); DOT, 1 - q·v.
 */
@PublicEvolving
public enum VectorMetric {
  L2(DistanceType.L2),
  COSINE(DistanceType.Cosine),
  DOT(DistanceType.Dot);

  private final DistanceType lance;

  VectorMetric(DistanceType lance) {
    this.lance = lance;
  }

  public DistanceType toLance() {
    return lance;
  }

  /** The metric Lance names {@code name} ("L2", "cosine", ...); empty for one we do not search. */
  public static Optional<VectorMetric> fromLance(String name) {
    for (VectorMetric metric : values()) {
      if (metric.name().equalsIgnoreCase(name)) {
        return Optional.of(metric);
      }
    }
    return Optional.empty();
  }

  @Override
  public String toString() {
    return name().toLowerCase(Locale.ROOT);
  }
}
