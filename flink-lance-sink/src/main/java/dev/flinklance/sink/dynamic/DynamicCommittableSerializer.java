package dev.flinklance.sink.dynamic;

import dev.flinklance.sink.committer.LanceCommittableSerializer;
import dev.flinklance.state.FormatSerializer;
import java.io.IOException;
import org.apache.flink.annotation.Internal;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Versioned form of {@link DynamicCommittable}, in checkpoints and savepoints: the table, its key
 * type, then the single-table committable's own versioned form.
 */
@Internal
public final class DynamicCommittableSerializer extends FormatSerializer<DynamicCommittable> {
  private final LanceCommittableSerializer committables = new LanceCommittableSerializer();

  /**
   * Format 2 holds the single-table committable in its format 4 (removed keys in key files); format
   * 1, which holds it in format 3, reads the same way: the nested form names its format.
   */
  public DynamicCommittableSerializer() {
    super("pending Lance commits of the dynamic sink", 2, 256);
  }

  @Override
  protected boolean readsOlder(int format) {
    return format == 1;
  }

  @Override
  protected DynamicCommittable readOlder(int format, DataInputView in) throws IOException {
    return read(in);
  }

  @Override
  protected void write(DynamicCommittable value, DataOutputView out) throws IOException {
    TableNames.write(value.table(), value.keyType(), out);
    Nested.write(committables, value.committable(), out);
  }

  @Override
  protected DynamicCommittable read(DataInputView in) throws IOException {
    TableName table = TableNames.readName(in);
    return new DynamicCommittable(table, TableNames.readKeyType(in), Nested.read(committables, in));
  }
}
