package dev.flinklance.source.enumerator;

import dev.flinklance.access.VersionMark;
import dev.flinklance.source.split.LanceSplit;
import java.util.List;
import org.apache.flink.annotation.Internal;

/**
 * The splits not yet assigned to a reader, and the version up to which every change has been made
 * into splits. Assigned splits live in the readers' state; splits of a failed reader come back
 * through {@code addSplitsBack}.
 *
 * @param planned in a streaming read, the newest version whose splits all exist (pending, assigned
 *     or read), with its commit instant to recognise a replaced table; null before the start
 *     position was planned, and in a bounded read
 */
@Internal
public record LanceEnumeratorState(List<LanceSplit> pendingSplits, VersionMark planned) {

  public LanceEnumeratorState {
    pendingSplits = List.copyOf(pendingSplits);
  }
}
