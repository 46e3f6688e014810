package dev.flinklance.source.enumerator;

import dev.flinklance.source.split.LanceSplit;
import java.util.List;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SourceEvent;

/**
 * What readers tell the enumerator about their splits, so that it hands out a version's splits only
 * once every split of the versions before has been read to its end.
 */
@Internal
public final class ReaderEvents {

  private ReaderEvents() {}

  /** Sent once when a reader starts: the splits it holds from a restored checkpoint. */
  public record Holding(List<LanceSplit> splits) implements SourceEvent {
    private static final long serialVersionUID = 1L;

    public Holding {
      splits = List.copyOf(splits);
    }
  }

  /** Sent when a reader has emitted the last row of splits. */
  public record Finished(List<String> splitIds) implements SourceEvent {
    private static final long serialVersionUID = 1L;

    public Finished {
      splitIds = List.copyOf(splitIds);
    }
  }
}
