package dev.flinklance.sink.dynamic;

import dev.flinklance.key.RowKey;
import dev.flinklance.sink.writer.LanceWriteResult;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.lance.FragmentMetadata;

/** Several write results of one table in one checkpoint, as one. */
final class LanceWriteResults {
  private LanceWriteResults() {}

  static LanceWriteResult merge(List<LanceWriteResult> results) {
    List<FragmentMetadata> fragments = new ArrayList<>();
    Set<RowKey> keys = new LinkedHashSet<>();
    for (LanceWriteResult result : results) {
      fragments.addAll(result.fragments());
      keys.addAll(result.removedKeys());
    }
    return new LanceWriteResult(fragments, List.copyOf(keys));
  }
}
