package dev.flinklance.sink.writer;

import dev.flinklance.sink.keys.ChangedKeys;
import java.util.List;
import org.apache.flink.annotation.Internal;
import org.lance.FragmentMetadata;

/**
 * What one writer subtask hands on at a checkpoint: the fragment files it wrote since the last one.
 * Metadata only; nothing is visible in the table until the committer commits it.
 *
 * @param removedKeys for a sink with a primary key: every key the checkpoint changed (upserted or
 *     deleted), whose rows already in the table the commit deletes
 */
@Internal
public record LanceWriteResult(List<FragmentMetadata> fragments, ChangedKeys removedKeys) {

  public LanceWriteResult {
    fragments = List.copyOf(fragments);
  }

  /** The result of an appending writer. */
  public LanceWriteResult(List<FragmentMetadata> fragments) {
    this(fragments, ChangedKeys.NONE);
  }
}
