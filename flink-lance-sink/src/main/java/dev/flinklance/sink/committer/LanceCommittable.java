package dev.flinklance.sink.committer;

import java.util.List;
import org.lance.FragmentMetadata;

/**
 * Everything one checkpoint wrote, across all writer subtasks: committed as ONE Lance transaction
 * stamped with {@code commitUser} and {@code checkpointId}.
 *
 * @param jobId the Flink job that produced it; informational only (a restore changes it)
 */
public record LanceCommittable(
    String commitUser, long checkpointId, String jobId, List<FragmentMetadata> fragments) {

  public LanceCommittable {
    fragments = List.copyOf(fragments);
  }

  public long rowCount() {
    return fragments.stream().mapToLong(FragmentMetadata::getPhysicalRows).sum();
  }

  /** Short form: Flink prints committables in failure messages, fragment lists are long. */
  @Override
  public String toString() {
    return String.format(
        "LanceCommittable{commitUser=%s, checkpointId=%d, jobId=%s, fragments=%d, rows=%d}",
        commitUser, checkpointId, jobId, fragments.size(), rowCount());
  }
}
