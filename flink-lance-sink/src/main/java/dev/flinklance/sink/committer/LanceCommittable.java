package dev.flinklance.sink.committer;

import dev.flinklance.access.VersionMark;
import dev.flinklance.commit.CommitStamp;
import dev.flinklance.sink.keys.ChangedKeys;
import java.util.List;
import org.apache.flink.annotation.Internal;
import org.lance.FragmentMetadata;

/**
 * Everything one checkpoint wrote, across all writer subtasks: committed as ONE Lance transaction
 * carrying {@code stamp}.
 *
 * @param runStart the table's latest version when the sink run that created this committable
 *     started: the committable can only have landed in a later version, and a table without that
 *     version is not the table it was written for
 * @param overwrite commit as an Overwrite (the table's rows become exactly {@code fragments})
 *     instead of an Append
 * @param removedKeys for a sink with a primary key: the keys whose rows in the table the commit
 *     deletes (every key the checkpoint upserted or deleted), inline or in key files; the commit is
 *     then an Update
 */
@Internal
public record LanceCommittable(
    CommitStamp stamp,
    VersionMark runStart,
    boolean overwrite,
    List<FragmentMetadata> fragments,
    ChangedKeys removedKeys) {

  public LanceCommittable {
    fragments = List.copyOf(fragments);
  }

  /** A committable of an appending sink. */
  public LanceCommittable(
      CommitStamp stamp,
      VersionMark runStart,
      boolean overwrite,
      List<FragmentMetadata> fragments) {
    this(stamp, runStart, overwrite, fragments, ChangedKeys.NONE);
  }

  public long checkpointId() {
    return stamp.checkpointId();
  }

  public long rowCount() {
    return fragments.stream().mapToLong(FragmentMetadata::getPhysicalRows).sum();
  }

  /** Whether the commit replaces rows by key (an Update) rather than only adding rows. */
  public boolean upserts() {
    return !overwrite && !removedKeys.isEmpty();
  }

  /** Short form: Flink prints committables in failure messages, fragment lists are long. */
  @Override
  public String toString() {
    return String.format(
        "LanceCommittable{commitUser=%s, checkpointId=%d, run=%s#%d, %s, fragments=%d, rows=%d%s}",
        stamp.commitUser(),
        stamp.checkpointId(),
        stamp.run(),
        stamp.runSeq(),
        overwrite ? "overwrite" : upserts() ? "upsert" : "append",
        fragments.size(),
        rowCount(),
        upserts() ? ", keys=" + removedKeys.count() : "");
  }
}
