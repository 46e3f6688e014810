package dev.flinklance.schema;

import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.annotation.Internal;
import org.lance.Dataset;

/**
 * A table version's Arrow schema with every field's Lance id in its metadata, as a fragment write
 * or an Overwrite must be given it. Without the ids lance-core 7.0.0 numbers the fields of a new
 * data file by their position: once a table's ids have a gap (a dropped column) or another order (a
 * column added FIRST), the file's columns are read as other columns, or the read panics.
 */
@Internal
public final class FieldIds {

  private FieldIds() {}

  public static Schema schemaOf(Dataset dataset) {
    return SchemaTree.of(dataset.getLanceSchema(), dataset.getSchema()).toArrow();
  }
}
