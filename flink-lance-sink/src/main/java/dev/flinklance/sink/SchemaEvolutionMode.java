package dev.flinklance.sink;

import org.apache.flink.annotation.PublicEvolving;

/**
 * What a sink does with columns of its row type that the table lacks (option {@code
 * sink.schema-evolution}).
 */
@PublicEvolving
public enum SchemaEvolutionMode {
  /**
   * Fail at start, naming the table and the columns: the table is changed by nobody but its owner.
   */
  NONE("none"),
  /**
   * Add the nullable columns (and nested ROW fields) the table lacks, in one commit before the
   * sink's first: older rows read them as NULL.
   */
  ADD_COLUMNS("add-columns");

  private final String value;

  SchemaEvolutionMode(String value) {
    this.value = value;
  }

  /** The option's value, as Flink parses and prints it. */
  @Override
  public String toString() {
    return value;
  }
}
