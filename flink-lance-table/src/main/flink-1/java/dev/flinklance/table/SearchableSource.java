package dev.flinklance.table;

/**
 * A table source {@code VECTOR_SEARCH} would search: Flink 1.20 has no {@code VECTOR_SEARCH}
 * (FLIP-540, Flink 2.2+), so nothing asks for the target on this Flink line.
 */
interface SearchableSource {
  SearchTarget searchTarget();
}
