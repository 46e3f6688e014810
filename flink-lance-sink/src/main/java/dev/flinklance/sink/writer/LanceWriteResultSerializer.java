package dev.flinklance.sink.writer;

import dev.flinklance.dataset.FormatSerializer;
import dev.flinklance.dataset.FragmentMetadataCodec;
import java.io.IOException;
import org.apache.flink.annotation.Internal;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/** Versioned wire form of {@link LanceWriteResult}. */
@Internal
public final class LanceWriteResultSerializer extends FormatSerializer<LanceWriteResult> {

  public LanceWriteResultSerializer() {
    super("Lance write results", 1, 256);
  }

  @Override
  protected void write(LanceWriteResult result, DataOutputView out) throws IOException {
    FragmentMetadataCodec.writeList(result.fragments(), out);
  }

  @Override
  protected LanceWriteResult read(DataInputView in) throws IOException {
    return new LanceWriteResult(FragmentMetadataCodec.readList(in));
  }
}
