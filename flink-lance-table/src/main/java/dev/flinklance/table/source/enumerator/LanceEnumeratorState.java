package dev.flinklance.table.source.enumerator;

import dev.flinklance.table.source.split.LanceSplit;
import java.util.List;
import org.apache.flink.annotation.Internal;

/**
 * The splits not yet assigned to a reader. Assigned splits live in the readers' state; splits of a
 * failed reader come back through {@code addSplitsBack}.
 */
@Internal
public record LanceEnumeratorState(List<LanceSplit> pendingSplits) {

  public LanceEnumeratorState {
    pendingSplits = List.copyOf(pendingSplits);
  }
}
