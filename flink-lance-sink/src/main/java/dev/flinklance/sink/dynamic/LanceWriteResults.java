package dev.flinklance.sink.dynamic;

import dev.flinklance.sink.keys.ChangedKeys;
import dev.flinklance.sink.writer.LanceWriteResult;
import java.util.ArrayList;
import java.util.List;
import org.lance.FragmentMetadata;

/** Several write results of one table in one checkpoint, as one. */
final class LanceWriteResults {
  private LanceWriteResults() {}

  static LanceWriteResult merge(List<LanceWriteResult> results) {
    List<FragmentMetadata> fragments = new ArrayList<>();
    List<ChangedKeys> keys = new ArrayList<>();
    for (LanceWriteResult result : results) {
      fragments.addAll(result.fragments());
      keys.add(result.removedKeys());
    }
    return new LanceWriteResult(fragments, ChangedKeys.concat(keys));
  }
}
