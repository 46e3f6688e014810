package dev.flinklance.compactor.plan;

import java.io.IOException;
import org.apache.flink.annotation.Internal;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;
import org.lance.FragmentMetadata;
import org.lance.fragment.DeletionFile;

/**
 * A fragment's identity and content version: the same key in a later table version means the
 * fragment is unchanged (same data, same deletions). Fragment ids alone are not enough: deletes
 * replace a fragment's deletion file under the same id, and an overwrite reuses ids.
 */
@Internal
public record FragmentKey(int id, String firstDataFile, long deletionFileId) {

  public static FragmentKey of(FragmentMetadata fragment) {
    DeletionFile deletion = fragment.getDeletionFile();
    return new FragmentKey(
        fragment.getId(),
        fragment.getFiles().isEmpty() ? "" : fragment.getFiles().get(0).getPath(),
        deletion == null ? 0 : deletion.getId());
  }

  void write(DataOutputView out) throws IOException {
    out.writeInt(id);
    out.writeUTF(firstDataFile);
    out.writeLong(deletionFileId);
  }

  static FragmentKey read(DataInputView in) throws IOException {
    return new FragmentKey(in.readInt(), in.readUTF(), in.readLong());
  }
}
