package dev.flinklance.iceberg;

import java.io.Serializable;
import java.util.List;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;

/**
 * Records for many tables, numbered from 0, that each sink turns into its own record type: the
 * record's table (in database {@link Workload#DATABASE}), whether it is a change by the key {@code
 * id} (else an appended row), its schema and its row, whose kind says the change.
 */
interface Records extends Serializable {
  long count();

  /** Every table the records go to. */
  List<String> tables();

  String table(long i);

  boolean keyed(long i);

  RowType rowType(long i);

  RowData row(long i);
}
