package dev.flinklance.sink.writer;

import dev.flinklance.access.OpenTable;
import dev.flinklance.errors.PermanentDatasetException;
import dev.flinklance.key.PrimaryKey;
import dev.flinklance.schema.ColumnChange;
import dev.flinklance.schema.ColumnPath;
import dev.flinklance.schema.ColumnPosition;
import dev.flinklance.schema.SchemaEvolution;
import dev.flinklance.sink.LanceSinkOptions;
import dev.flinklance.sink.SchemaEvolutionMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.annotation.Internal;
import org.lance.Dataset;

/**
 * The columns of the sink's rows, and the fields of their ROW columns, that an existing table
 * lacks: added with {@link SchemaEvolution} under {@code sink.schema-evolution = add-columns},
 * refused by name otherwise. Type differences of columns both have are left to the column writers,
 * which name the column and both types.
 */
@Internal
public final class MissingColumns {
  /** The transaction property naming the sink whose start added the columns. */
  static final String ADDED_BY = "flink.sink.schema-evolution";

  /** Tries of the addition, each after another writer added some of the columns meanwhile. */
  private static final int ATTEMPTS = 3;

  private final List<ColumnChange.Add> additions;

  private MissingColumns(List<ColumnChange.Add> additions) {
    this.additions = additions;
  }

  /**
   * The columns {@code table} will have once a sink with {@code sink.schema-evolution} = {@code
   * add-columns} added what {@code stream} has and it lacks: for the SQL sink's check at planning.
   *
   * @throws IllegalArgumentException naming a column that cannot be added (NOT NULL)
   */
  public static Schema widened(Dataset table, String uri, Schema stream) {
    return SchemaEvolution.preview(
        table, uri, List.copyOf(of(stream, table.getSchema()).additions));
  }

  /** What {@code stream} has and {@code table} lacks, each new column or field after the last. */
  public static MissingColumns of(Schema stream, Schema table) {
    List<ColumnChange.Add> additions = new ArrayList<>();
    collect(List.of(), stream.getFields(), table.getFields(), additions);
    return new MissingColumns(additions);
  }

  private static void collect(
      List<String> parent, List<Field> stream, List<Field> table, List<ColumnChange.Add> into) {
    for (Field field : stream) {
      List<String> names = new ArrayList<>(parent);
      names.add(field.getName());
      Optional<Field> existing =
          table.stream().filter(f -> f.getName().equals(field.getName())).findFirst();
      if (existing.isEmpty()) {
        into.add(
            new ColumnChange.Add(
                ColumnPath.of(names.toArray(String[]::new)), field, ColumnPosition.LAST));
      } else if (field.getType() instanceof ArrowType.Struct
          && existing.get().getType() instanceof ArrowType.Struct) {
        collect(names, field.getChildren(), existing.get().getChildren(), into);
      }
    }
  }

  public boolean isEmpty() {
    return additions.isEmpty();
  }

  /**
   * Adds the missing columns to {@code table} in one commit, or fails naming them where {@code
   * mode} does not allow it. A concurrent identical change (another subtask of the sink, another
   * job) is harmless: whatever is still missing after it is added, nothing added twice.
   *
   * @return the columns of the newest version, which has every column of the stream
   * @throws PermanentDatasetException naming the table and columns that cannot be added
   */
  static Schema addTo(OpenTable table, Schema stream, SchemaEvolutionMode mode) {
    MissingColumns missing = of(stream, table.dataset().getSchema());
    String uri = table.table().uri();
    if (missing.isEmpty()) {
      return table.dataset().getSchema();
    }
    for (ColumnChange.Add add : missing.additions) {
      Map<String, String> metadata = add.field().getMetadata();
      if (metadata != null && metadata.containsKey(PrimaryKey.LANCE_PRIMARY_KEY)) {
        throw new PermanentDatasetException(
            uri,
            String.format(
                "Primary key column '%s' is not a column of Lance table '%s'; a key column cannot"
                    + " be added to a table (its rows would have no key)",
                add.column(), uri),
            null);
      }
    }
    if (mode != SchemaEvolutionMode.ADD_COLUMNS) {
      throw new PermanentDatasetException(
          uri,
          String.format(
              "the stream has columns the table lacks: %s; set '%s' = '%s' to add them (nullable)"
                  + " before the sink's first commit",
              missing,
              LanceSinkOptions.SINK_SCHEMA_EVOLUTION.key(),
              SchemaEvolutionMode.ADD_COLUMNS),
          null);
    }
    for (int attempt = 1; ; attempt++) {
      try {
        SchemaEvolution.apply(
            table,
            List.copyOf(missing.additions),
            Map.of(ADDED_BY, SchemaEvolutionMode.ADD_COLUMNS.toString()));
        return table.dataset().getSchema();
      } catch (IllegalArgumentException refused) {
        // "a column of that name exists": someone added some since our look; add the rest
        table.moveToLatest();
        missing = of(stream, table.dataset().getSchema());
        if (missing.isEmpty()) {
          return table.dataset().getSchema();
        }
        if (attempt == ATTEMPTS) {
          throw new PermanentDatasetException(uri, refused.getMessage(), refused);
        }
      }
    }
  }

  @Override
  public String toString() {
    return additions.stream()
        .map(
            add ->
                add.column()
                    + " "
                    + add.field().getType()
                    + (add.field().isNullable() ? "" : " NOT NULL"))
        .collect(Collectors.joining(", ", "[", "]"));
  }
}
