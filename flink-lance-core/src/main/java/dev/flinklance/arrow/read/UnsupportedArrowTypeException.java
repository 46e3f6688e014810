package dev.flinklance.arrow.read;

import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.flink.annotation.PublicEvolving;

/** A table column whose Arrow type has no Flink equivalent, named by its column path. */
@PublicEvolving
public final class UnsupportedArrowTypeException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  public UnsupportedArrowTypeException(String columnPath, ArrowType type) {
    super(
        String.format(
            "Column '%s' has Arrow type %s, which has no Flink equivalent. Readable: bool,"
                + " (u)int8-64, float16/32/64, decimal (precision <= 38), utf8, large_utf8,"
                + " utf8_view, binary, large_binary, binary_view, fixed_size_binary, date32/64,"
                + " time32/64, timestamp (any unit, with or without zone), list, large_list,"
                + " fixed_size_list, struct, map, and dictionary-encoded values of these.",
            columnPath, type));
  }
}
