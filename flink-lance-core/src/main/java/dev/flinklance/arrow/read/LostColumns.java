package dev.flinklance.arrow.read;

import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.flink.annotation.Internal;
import org.lance.schema.LanceField;
import org.lance.schema.LanceSchema;

/**
 * What schema changes between two versions of a table did to the top-level columns a reader reads,
 * told by Lance field ids (a name alone cannot tell a rename from a drop and an add): a column
 * whose values the later version no longer holds under its name. A column added is not lost: the
 * rows before read it as NULL.
 */
@Internal
public final class LostColumns {
  private LostColumns() {}

  /**
   * The first read column (in {@code columns} order) that {@code before} has and {@code after} no
   * longer holds under its name, as "dropped column 'a'", "renamed column 'a' to 'b'" or "dropped
   * column 'a' and added another of that name" (the rows before read NULL in it); empty if none.
   * Columns {@code before} lacks (added later) are not looked at.
   */
  public static Optional<String> between(
      LanceSchema before, LanceSchema after, Collection<String> columns) {
    Map<String, LanceField> was = byName(before);
    Map<String, LanceField> now = byName(after);
    Map<Integer, LanceField> nowById =
        after.fields().stream().collect(Collectors.toMap(LanceField::getId, Function.identity()));
    for (String column : columns) {
      LanceField field = was.get(column);
      if (field == null) {
        continue;
      }
      LanceField same = nowById.get(field.getId());
      if (same != null && !same.getName().equals(column)) {
        return Optional.of(String.format("renamed column '%s' to '%s'", column, same.getName()));
      }
      if (same == null) {
        return Optional.of(
            now.containsKey(column)
                ? String.format(
                    "dropped column '%s' and added another of that name (NULL in the rows"
                        + " before)",
                    column)
                : String.format("dropped column '%s'", column));
      }
    }
    return Optional.empty();
  }

  /**
   * The name that {@code later}'s column {@code column} had in the {@code earlier} schema, if it
   * had another one (it was renamed since); empty if the column is new since, or kept its name.
   */
  public static Optional<String> formerName(LanceSchema earlier, LanceSchema later, String column) {
    LanceField field = byName(later).get(column);
    if (field == null) {
      return Optional.empty();
    }
    return earlier.fields().stream()
        .filter(was -> was.getId() == field.getId() && !was.getName().equals(column))
        .map(LanceField::getName)
        .findFirst();
  }

  private static Map<String, LanceField> byName(LanceSchema schema) {
    return schema.fields().stream()
        .collect(Collectors.toMap(LanceField::getName, Function.identity()));
  }
}
