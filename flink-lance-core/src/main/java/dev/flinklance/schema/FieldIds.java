package dev.flinklance.schema;

import dev.flinklance.arrow.read.LanceReadSchema;
import java.util.Optional;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.annotation.Internal;
import org.lance.Dataset;
import org.lance.schema.LanceSchema;

/**
 * A table version's Arrow schema as a fragment write or an Overwrite must be given it. lance-core
 * 7.0.0 numbers a new data file's fields by their position unless the schema carries each field's
 * id ({@code lance:field_id}): once a table's ids have a gap (a dropped column) or another order (a
 * column added FIRST), the file's columns would be read as other columns, or the read panics. Where
 * the ids are in order the schema goes without them, as every write did before: there they change
 * nothing, and a write that stays as it was takes no path of lance-core's that is not measured.
 */
@Internal
public final class FieldIds {

  private FieldIds() {}

  public static Schema schemaOf(Dataset dataset) {
    Optional<LanceSchema> fields = LanceReadSchema.lanceFieldsOf(dataset);
    if (fields.isEmpty()) {
      return dataset.getSchema();
    }
    SchemaTree tree = SchemaTree.of(fields.get(), dataset.getSchema());
    return tree.idsInOrder() ? dataset.getSchema() : tree.toArrow();
  }
}
