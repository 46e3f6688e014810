package dev.flinklance.schema;

import java.util.List;
import java.util.stream.Collectors;
import org.apache.flink.annotation.Internal;

/**
 * A column of a table, top-level ({@code [email]}) or a field of a ROW column ({@code [address,
 * city]}): names, not a dotted string, since a name may hold a dot.
 */
@Internal
public record ColumnPath(List<String> names) {

  public ColumnPath {
    names = List.copyOf(names);
    if (names.isEmpty()) {
      throw new IllegalArgumentException("A column path names at least one column");
    }
  }

  public static ColumnPath of(String... names) {
    return new ColumnPath(List.of(names));
  }

  /** The column's own name, the last of the path. */
  public String name() {
    return names.get(names.size() - 1);
  }

  /** The ROW column holding this field, or empty for a top-level column. */
  public List<String> parent() {
    return names.subList(0, names.size() - 1);
  }

  public ColumnPath child(String name) {
    List<String> child = new java.util.ArrayList<>(names);
    child.add(name);
    return new ColumnPath(child);
  }

  /** As SQL writes it: {@code address.city}, a name with other characters in backticks. */
  @Override
  public String toString() {
    return names.stream().map(ColumnPath::quote).collect(Collectors.joining("."));
  }

  static String quote(String name) {
    return name.matches("[A-Za-z_][A-Za-z0-9_]*") ? name : "`" + name.replace("`", "``") + "`";
  }
}
