package dev.flinklance.sink.writer;

import java.util.List;
import org.apache.flink.annotation.Internal;
import org.lance.FragmentMetadata;

/**
 * What one writer subtask hands on at a checkpoint: the fragment files it wrote since the last one.
 * Metadata only; nothing is visible in the table until the committer commits it.
 */
@Internal
public record LanceWriteResult(List<FragmentMetadata> fragments) {

  public LanceWriteResult {
    fragments = List.copyOf(fragments);
  }
}
