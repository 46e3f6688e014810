package dev.flinklance.compactor.plan;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.annotation.Internal;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * A plan handed to the workers whose outcome the planner has not seen yet. The planner cannot hear
 * back from the committer (a Flink job graph has no cycles), so it reads the outcome from the
 * table: once a source fragment is gone or changed, the plan committed or was preempted; after
 * {@code compaction.timeout}, it failed. Until then its fragments are not planned again.
 */
@Internal
public record InFlightPlan(String planId, long plannedAtMillis, List<FragmentKey> sources) {

  boolean isSettled(Set<FragmentKey> current, long nowMillis, long timeoutMillis) {
    return !current.containsAll(sources) || nowMillis - plannedAtMillis >= timeoutMillis;
  }

  /**
   * Whether a delete preempted the plan: a source fragment is still in the table, its data
   * unchanged, with other rows deleted (a rewrite would bring those rows back, so its commit drops
   * it). Other changes (a commit of the plan, an overwrite) are not counted.
   */
  boolean wasDeletedFrom(Map<Integer, FragmentKey> current) {
    return sources.stream()
        .anyMatch(
            source -> {
              FragmentKey now = current.get(source.id());
              return now != null
                  && now.firstDataFile().equals(source.firstDataFile())
                  && now.deletionFileId() != source.deletionFileId();
            });
  }

  void write(DataOutputView out) throws IOException {
    out.writeUTF(planId);
    out.writeLong(plannedAtMillis);
    out.writeInt(sources.size());
    for (FragmentKey source : sources) {
      source.write(out);
    }
  }

  static InFlightPlan read(DataInputView in) throws IOException {
    String planId = in.readUTF();
    long plannedAt = in.readLong();
    int count = in.readInt();
    List<FragmentKey> sources = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      sources.add(FragmentKey.read(in));
    }
    return new InFlightPlan(planId, plannedAt, List.copyOf(sources));
  }
}
