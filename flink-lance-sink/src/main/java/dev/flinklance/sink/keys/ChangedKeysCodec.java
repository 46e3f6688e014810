package dev.flinklance.sink.keys;

import dev.flinklance.key.RowKeyCodec;
import dev.flinklance.state.FragmentMetadataCodec;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.annotation.Internal;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/** Binary form of {@link ChangedKeys} inside write results and committables. */
@Internal
public final class ChangedKeysCodec {
  private ChangedKeysCodec() {}

  public static void write(ChangedKeys keys, DataOutputView out) throws IOException {
    RowKeyCodec.writeList(keys.inline(), out);
    out.writeInt(keys.files().size());
    for (ChangedKeys.KeyFile file : keys.files()) {
      FragmentMetadataCodec.writeString(file.name(), out);
      out.writeInt(file.count());
    }
  }

  public static ChangedKeys read(DataInputView in) throws IOException {
    var inline = RowKeyCodec.readList(in);
    int count = in.readInt();
    List<ChangedKeys.KeyFile> files = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      files.add(new ChangedKeys.KeyFile(FragmentMetadataCodec.readString(in), in.readInt()));
    }
    return new ChangedKeys(inline, files);
  }
}
