package dev.flinklance.sink.dynamic;

import dev.flinklance.sink.writer.LanceWriteResultSerializer;
import dev.flinklance.state.FormatSerializer;
import java.io.IOException;
import org.apache.flink.annotation.Internal;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/** Wire form of {@link TableWriteResult}: the table, then the single-table write result's form. */
@Internal
public final class TableWriteResultSerializer extends FormatSerializer<TableWriteResult> {
  private final LanceWriteResultSerializer results = new LanceWriteResultSerializer();

  /** Format 2: the single-table write result in its format 3 (removed keys in key files). */
  public TableWriteResultSerializer() {
    super("Lance dynamic sink write results", 2, 256);
  }

  @Override
  protected void write(TableWriteResult value, DataOutputView out) throws IOException {
    TableNames.write(value.table(), value.keyType(), out);
    Nested.write(results, value.result(), out);
  }

  @Override
  protected TableWriteResult read(DataInputView in) throws IOException {
    TableName table = TableNames.readName(in);
    return new TableWriteResult(table, TableNames.readKeyType(in), Nested.read(results, in));
  }
}
