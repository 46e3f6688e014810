package dev.flinklance.sink.writer;

import dev.flinklance.sink.keys.ChangedKeysCodec;
import dev.flinklance.state.FormatSerializer;
import dev.flinklance.state.FragmentMetadataCodec;
import java.io.IOException;
import org.apache.flink.annotation.Internal;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Versioned wire form of {@link LanceWriteResult}. Write results travel from the writers to the
 * aggregator and are never kept in state, so a format change needs no reader of the old one.
 */
@Internal
public final class LanceWriteResultSerializer extends FormatSerializer<LanceWriteResult> {

  /** Format 3: the removed keys of a sink with a primary key, inline or in key files. */
  public LanceWriteResultSerializer() {
    super("Lance write results", 3, 256);
  }

  @Override
  protected void write(LanceWriteResult result, DataOutputView out) throws IOException {
    FragmentMetadataCodec.writeList(result.fragments(), out);
    ChangedKeysCodec.write(result.removedKeys(), out);
  }

  @Override
  protected LanceWriteResult read(DataInputView in) throws IOException {
    return new LanceWriteResult(FragmentMetadataCodec.readList(in), ChangedKeysCodec.read(in));
  }
}
