package dev.flinklance.compactor.codec;

import dev.flinklance.state.FragmentMetadataCodec;
import java.io.IOException;
import org.apache.flink.annotation.Internal;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;
import org.lance.compaction.CompactionMetrics;
import org.lance.compaction.RewriteResult;

/** Field-by-field binary form of a Lance {@link RewriteResult}; see {@link CompactionTaskCodec}. */
@Internal
public final class RewriteResultCodec {

  private RewriteResultCodec() {}

  public static void write(RewriteResult result, DataOutputView out) throws IOException {
    CompactionMetrics metrics = result.getMetrics();
    out.writeLong(metrics.getFragmentsRemoved());
    out.writeLong(metrics.getFragmentsAdded());
    out.writeLong(metrics.getFilesRemoved());
    out.writeLong(metrics.getFilesAdded());
    FragmentMetadataCodec.writeList(result.getNewFragments(), out);
    FragmentMetadataCodec.writeList(result.getOriginalFragments(), out);
    out.writeLong(result.getReadVersion());
    byte[] rowAddrs = result.getRowAddrs();
    out.writeInt(rowAddrs == null ? -1 : rowAddrs.length);
    if (rowAddrs != null) {
      out.write(rowAddrs);
    }
  }

  public static RewriteResult read(DataInputView in) throws IOException {
    long fragmentsRemoved = in.readLong();
    long fragmentsAdded = in.readLong();
    long filesRemoved = in.readLong();
    long filesAdded = in.readLong();
    CompactionMetrics metrics =
        new CompactionMetrics(fragmentsRemoved, fragmentsAdded, filesRemoved, filesAdded);
    var newFragments = FragmentMetadataCodec.readList(in);
    var originalFragments = FragmentMetadataCodec.readList(in);
    long readVersion = in.readLong();
    int length = in.readInt();
    byte[] rowAddrs = null;
    if (length >= 0) {
      rowAddrs = new byte[length];
      in.readFully(rowAddrs);
    }
    return new RewriteResult(metrics, newFragments, originalFragments, readVersion, rowAddrs);
  }
}
