package dev.flinklance.table.source.enumerator;

import dev.flinklance.table.source.split.LanceSplit;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.Deque;
import java.util.List;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands out one fragment per request, so fast readers take more fragments than slow ones; once all
 * are handed out, tells each asking reader that there are no more (the scan is bounded).
 */
@Internal
public final class LanceSplitEnumerator
    implements SplitEnumerator<LanceSplit, LanceEnumeratorState> {
  private static final Logger LOG = LoggerFactory.getLogger(LanceSplitEnumerator.class);

  private final SplitEnumeratorContext<LanceSplit> context;
  private final Deque<LanceSplit> pending;

  public LanceSplitEnumerator(
      SplitEnumeratorContext<LanceSplit> context, Collection<LanceSplit> pending) {
    this.context = context;
    this.pending = new ArrayDeque<>(pending);
  }

  @Override
  public void start() {}

  @Override
  public void handleSplitRequest(int subtaskId, String requesterHostname) {
    LanceSplit split = pending.pollFirst();
    if (split == null) {
      context.signalNoMoreSplits(subtaskId);
      return;
    }
    LOG.debug("Assigning {} to reader {}", split, subtaskId);
    context.assignSplit(split, subtaskId);
  }

  /** Splits of a failed reader, with the progress of its last checkpoint, are read again first. */
  @Override
  public void addSplitsBack(List<LanceSplit> splits, int subtaskId) {
    for (int i = splits.size() - 1; i >= 0; i--) {
      pending.addFirst(splits.get(i));
    }
  }

  @Override
  public void addReader(int subtaskId) {
    // readers ask for splits themselves
  }

  @Override
  public LanceEnumeratorState snapshotState(long checkpointId) {
    return new LanceEnumeratorState(List.copyOf(pending));
  }

  @Override
  public void close() {}
}
