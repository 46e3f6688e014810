package dev.flinklance.source.reader;

import org.apache.flink.types.RowKind;

/**
 * The rows of one batch a split emits, with their kinds.
 *
 * @param indices the rows in the batch, or null for its first {@code count} rows
 * @param kinds the kind of each, or null for {@code kind} for all
 */
record ChosenRows(int count, int[] indices, RowKind[] kinds, RowKind kind) {}
