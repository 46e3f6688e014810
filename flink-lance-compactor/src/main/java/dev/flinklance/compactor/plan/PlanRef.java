package dev.flinklance.compactor.plan;

import java.io.IOException;
import org.apache.flink.annotation.Internal;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Which compaction plan a task or outcome belongs to.
 *
 * @param planId unique per plan
 * @param readVersion the table version the plan was made on
 * @param taskCount how many tasks the plan has; 0 for a pass that found nothing to compact (the
 *     committer still runs cleanup after it)
 * @param fragmentsBefore the table's fragment count at {@code readVersion}
 */
@Internal
public record PlanRef(String planId, long readVersion, int taskCount, int fragmentsBefore) {

  public void write(DataOutputView out) throws IOException {
    out.writeUTF(planId);
    out.writeLong(readVersion);
    out.writeInt(taskCount);
    out.writeInt(fragmentsBefore);
  }

  public static PlanRef read(DataInputView in) throws IOException {
    return new PlanRef(in.readUTF(), in.readLong(), in.readInt(), in.readInt());
  }
}
