package dev.flinklance.sink.dynamic;

import java.io.IOException;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;
import org.apache.flink.table.types.logical.RowType;

/** The wire form of a table and its key type, shared by write results and committables. */
final class TableNames {
  private TableNames() {}

  static void write(TableName table, RowType keyType, DataOutputView out) throws IOException {
    out.writeUTF(table.database());
    out.writeUTF(table.table());
    out.writeBoolean(keyType != null);
    if (keyType != null) {
      out.writeUTF(RowTypes.text(keyType));
    }
  }

  static TableName readName(DataInputView in) throws IOException {
    return new TableName(in.readUTF(), in.readUTF());
  }

  static RowType readKeyType(DataInputView in) throws IOException {
    return in.readBoolean() ? RowTypes.parse(in.readUTF()) : null;
  }
}
