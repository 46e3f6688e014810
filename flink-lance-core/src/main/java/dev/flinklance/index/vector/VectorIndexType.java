package dev.flinklance.index.vector;

import java.util.Arrays;
import java.util.Locale;
import org.apache.flink.annotation.PublicEvolving;
import org.lance.index.IndexType;

/**
 * The vector index types the connector builds and rebuilds (lance-core 7.0.0's IVF family): what
 * {@code sys.create_vector_index} and {@code LanceVectorIndex} take, and what a compaction pass
 * rebuilds an index as.
 */
@PublicEvolving
public enum VectorIndexType {
  IVF_FLAT(IndexType.IVF_FLAT, Quantizer.NONE, false),
  IVF_SQ(IndexType.IVF_SQ, Quantizer.SQ, false),
  IVF_PQ(IndexType.IVF_PQ, Quantizer.PQ, false),
  IVF_RQ(IndexType.IVF_RQ, Quantizer.RQ, false),
  IVF_HNSW_SQ(IndexType.IVF_HNSW_SQ, Quantizer.SQ, true),
  IVF_HNSW_PQ(IndexType.IVF_HNSW_PQ, Quantizer.PQ, true);

  /** How vectors are compressed in the index. */
  enum Quantizer {
    NONE,
    PQ,
    SQ,
    RQ
  }

  private final IndexType lance;
  private final Quantizer quantizer;
  private final boolean hnsw;

  VectorIndexType(IndexType lance, Quantizer quantizer, boolean hnsw) {
    this.lance = lance;
    this.quantizer = quantizer;
    this.hnsw = hnsw;
  }

  IndexType toLance() {
    return lance;
  }

  Quantizer quantizer() {
    return quantizer;
  }

  boolean hnsw() {
    return hnsw;
  }

  /**
   * @throws IllegalArgumentException listing the types, for a name that is none of them
   */
  public static VectorIndexType of(String name) {
    String normalized = name == null ? "" : name.trim().toUpperCase(Locale.ROOT);
    return Arrays.stream(values())
        .filter(type -> type.name().equals(normalized))
        .findFirst()
        .orElseThrow(
            () ->
                new IllegalArgumentException(
                    String.format(
                        "Unknown vector index type '%s'; the types are %s",
                        name, Arrays.toString(values()))));
  }
}
