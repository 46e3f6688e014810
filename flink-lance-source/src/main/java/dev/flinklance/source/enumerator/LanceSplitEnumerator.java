package dev.flinklance.source.enumerator;

import dev.flinklance.access.VersionMark;
import dev.flinklance.errors.LanceDatasetException;
import dev.flinklance.errors.PermanentDatasetException;
import dev.flinklance.source.LanceScan;
import dev.flinklance.source.split.LanceSplit;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.IntStream;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands out one split per request, so fast readers take more splits than slow ones, in {@link
 * LanceSplit#READ_ORDER}: a split goes out only once every split of an earlier version (and, within
 * its version, every split of removed rows before one of added rows) has been read to its end,
 * which the readers report ({@link ReaderEvents}). A bounded read ends when all splits are handed
 * out; a streaming one looks for new versions every {@code scan.discovery-interval} ({@link
 * ChangePlanner}), off the coordinator thread.
 *
 * <p>A changelog read hands every split to one reader, the others stay idle: the changes of a key
 * then leave the source, and travel the operators chained to it, on one path, in order.
 *
 * <p>After a restore the enumerator does not know which of the splits assigned before the
 * checkpoint the readers still hold: it assigns nothing until every reader has said so.
 *
 * <p>With {@code scan.consumer-id} the read registers in the table the oldest version it needs
 * ({@link ConsumerProgress}): at its start, once restored readers said what they hold, and at every
 * completed checkpoint.
 *
 * <p>A streaming read that cannot go on (a version its policies stop at, a version that cannot be
 * read) fails once every split planned before has been read: its message says how far it got.
 */
@Internal
public final class LanceSplitEnumerator
    implements SplitEnumerator<LanceSplit, LanceEnumeratorState> {
  private static final Logger LOG = LoggerFactory.getLogger(LanceSplitEnumerator.class);

  /** Discoveries failing in a row (object-store errors) before the job fails. */
  static final int MAX_DISCOVERY_FAILURES = 3;

  private final SplitEnumeratorContext<LanceSplit> context;
  private final LanceScan scan;
  private final ChangePlanner planner;
  private final TreeSet<LanceSplit> pending = new TreeSet<>(LanceSplit.READ_ORDER);
  private final Map<String, LanceSplit> inFlight = new HashMap<>();
  private final Set<Integer> waiting = new LinkedHashSet<>();
  private final Set<Integer> unreported = new HashSet<>();
  private final AtomicBoolean discovering = new AtomicBoolean();
  private final SourceMetrics metrics;
  private final ConsumerProgress consumer;

  /** Read by the discovery thread; written on the coordinator thread when no discovery runs. */
  private volatile VersionMark planned;

  /**
   * The failure that ends a streaming read, held until every split planned before it has been read:
   * its message says how far the read got, and a user who starts again from there must not lose
   * rows. Set on the coordinator thread; discoveries stop once it is.
   */
  private volatile RuntimeException failure;

  private int discoveryFailures;

  /** In a changelog read, the one reader that reads every split; null until it is known. */
  private Integer changelogReader;

  /**
   * After a restore, until every reader said what it holds: the oldest version the restored state
   * needs so far (its pending splits, its planned version, the splits readers hold). Null
   * otherwise.
   */
  private Long restoredOldest;

  private LanceSplitEnumerator(
      SplitEnumeratorContext<LanceSplit> context,
      LanceScan scan,
      Collection<LanceSplit> pending,
      VersionMark planned) {
    this.context = context;
    this.scan = scan;
    this.planner = scan.streaming() == null ? null : new ChangePlanner(scan);
    this.pending.addAll(pending);
    this.planned = planned;
    this.metrics =
        planner == null
            ? null
            : new SourceMetrics(
                context.metricGroup(), scan.dataset(), scan.streaming().consumerId() != null);
    this.consumer =
        planner == null || scan.streaming().consumerId() == null
            ? null
            : new ConsumerProgress(
                context,
                scan.dataset(),
                scan.streaming().consumerId(),
                scan.streaming().consumerExpiration(),
                metrics);
  }

  /** A bounded read of {@code splits}. */
  public static LanceSplitEnumerator bounded(
      SplitEnumeratorContext<LanceSplit> context, LanceScan scan, List<LanceSplit> splits) {
    return new LanceSplitEnumerator(context, scan, splits, null);
  }

  /** A streaming read from its start position. */
  public static LanceSplitEnumerator streaming(
      SplitEnumeratorContext<LanceSplit> context, LanceScan scan) {
    return new LanceSplitEnumerator(context, scan, List.of(), null);
  }

  public static LanceSplitEnumerator restore(
      SplitEnumeratorContext<LanceSplit> context, LanceScan scan, LanceEnumeratorState state) {
    LanceSplitEnumerator enumerator =
        new LanceSplitEnumerator(context, scan, state.pendingSplits(), state.planned());
    if (enumerator.planner != null) {
      IntStream.range(0, context.currentParallelism()).forEach(enumerator.unreported::add);
      if (enumerator.consumer != null && state.planned() != null) {
        enumerator.restoredOldest = enumerator.oldestNeeded();
      }
    }
    LOG.info(
        "Restored the read of {}: {} splits pending, every change up to version {} planned",
        scan.dataset(),
        state.pendingSplits().size(),
        state.planned() == null ? "(none)" : state.planned().version());
    return enumerator;
  }

  @Override
  public void start() {
    if (planner == null) {
      return;
    }
    long interval = scan.streaming().discoveryInterval().toMillis();
    context.callAsync(this::discover, this::discovered, 0, interval);
  }

  /** On the worker thread: plans what is new, unless the last plan is not taken in yet. */
  private ChangePlanner.Plan discover() {
    if (failure != null || !discovering.compareAndSet(false, true)) {
      return null;
    }
    VersionMark from = planned;
    return from == null ? planner.start() : planner.next(from);
  }

  /** On the coordinator thread. */
  private void discovered(ChangePlanner.Plan plan, Throwable error) {
    if (error != null) {
      discovering.set(false);
      if (error instanceof PermanentDatasetException
          || ++discoveryFailures >= MAX_DISCOVERY_FAILURES) {
        failOnceRead(
            error instanceof RuntimeException runtime
                ? runtime
                : new LanceDatasetException(
                    scan.dataset().uri(), "cannot look for new versions", error));
        return;
      }
      LOG.warn(
          "Looking for new versions of {} failed ({} of {} in a row); trying again at the next"
              + " interval",
          scan.dataset(),
          discoveryFailures,
          MAX_DISCOVERY_FAILURES,
          error);
      return;
    }
    if (plan == null) {
      return; // a discovery was still running
    }
    discoveryFailures = 0;
    boolean started = planned == null;
    pending.addAll(plan.splits());
    planned = plan.position();
    if (consumer != null) {
      if (started) {
        consumer.register(oldestNeeded()); // a failover before the first checkpoint starts anew
      } else {
        consumer.heartbeat();
      }
    }
    metrics.latestVersion(plan.latest());
    discovering.set(false);
    assignWaiting();
    if (!plan.caughtUp()) {
      context.callAsync(this::discover, this::discovered);
    }
  }

  @Override
  public void handleSplitRequest(int subtaskId, String requesterHostname) {
    waiting.add(subtaskId);
    assignWaiting();
  }

  @Override
  public void handleSourceEvent(int subtaskId, SourceEvent event) {
    if (event instanceof ReaderEvents.Holding holding) {
      if (!holding.splits().isEmpty()) {
        LOG.info("Reader {} holds {} splits from its checkpoint", subtaskId, holding.splits());
      }
      holding.splits().forEach(split -> inFlight.put(split.splitId(), split));
      if (restoredOldest != null) {
        for (LanceSplit split : holding.splits()) {
          restoredOldest = Math.min(restoredOldest, split.oldestVersionOpened(scan.changelog()));
        }
      }
      if (scan.changelog() && !holding.splits().isEmpty()) {
        changelogReader = subtaskId; // its restored split's rows went that way: the rest follow
      }
      unreported.remove(subtaskId);
      if (unreported.isEmpty() && restoredOldest != null) {
        consumer.register(restoredOldest); // what the restored read reads: it may have expired
        restoredOldest = null;
      }
    } else if (event instanceof ReaderEvents.Finished finished) {
      finished.splitIds().forEach(inFlight::remove);
    }
    assignWaiting();
  }

  /** Splits of a failed reader, with the progress of its last checkpoint, are read again. */
  @Override
  public void addSplitsBack(List<LanceSplit> splits, int subtaskId) {
    LOG.info("Reader {} failed; its {} splits are read again", subtaskId, splits.size());
    for (LanceSplit split : splits) {
      inFlight.remove(split.splitId());
      pending.add(split);
    }
    assignWaiting();
  }

  private void failOnceRead(RuntimeException error) {
    failure = error;
    LOG.info(
        "The read of {} stops once the {} splits planned before are read: {}",
        scan.dataset(),
        pending.size() + inFlight.size(),
        error.getMessage());
    assignWaiting();
  }

  private void assignWaiting() {
    if (unreported.isEmpty()) {
      assignInOrder();
    }
    if (metrics != null) {
      metrics.update(versionRead(), pending.size());
    }
    if (failure != null && unreported.isEmpty() && pending.isEmpty() && inFlight.isEmpty()) {
      throw failure;
    }
  }

  private void assignInOrder() {
    if (scan.changelog() && changelogReader == null) {
      changelogReader = 0;
    }
    for (Iterator<Integer> readers = waiting.iterator(); readers.hasNext(); ) {
      int reader = readers.next();
      if (!context.registeredReaders().containsKey(reader)) {
        readers.remove(); // failed since it asked; it asks again when it is back
        continue;
      }
      if (changelogReader != null && reader != changelogReader) {
        continue; // idle for good
      }
      if (pending.isEmpty()) {
        if (planner == null) {
          context.signalNoMoreSplits(reader);
          readers.remove();
          continue;
        }
        return;
      }
      LanceSplit next = pending.first();
      if (inFlight.values().stream().anyMatch(split -> split.readsBefore(next))) {
        return; // an earlier version (or phase) is still being read
      }
      pending.pollFirst();
      inFlight.put(next.splitId(), next);
      readers.remove();
      LOG.debug("Assigning {} to reader {}", next, reader);
      context.assignSplit(next, reader);
    }
  }

  @Override
  public void addReader(int subtaskId) {
    // readers ask for splits themselves
  }

  @Override
  public LanceEnumeratorState snapshotState(long checkpointId) {
    // Until restored readers said what they hold, the splits they read are not known here: such a
    // checkpoint registers nothing, the registration before it still holds.
    if (consumer != null && planned != null && unreported.isEmpty()) {
      consumer.checkpointTaken(checkpointId, oldestNeeded());
    }
    return new LanceEnumeratorState(List.copyOf(pending), planned);
  }

  @Override
  public void notifyCheckpointComplete(long checkpointId) {
    if (consumer != null) {
      consumer.checkpointCompleted(checkpointId);
    }
  }

  @Override
  public void close() {
    if (consumer != null) {
      consumer.close();
    }
  }

  /**
   * The oldest version the read still needs: the oldest a pending or assigned split opens ({@link
   * LanceSplit#oldestVersionOpened}), and the planned version, against which the next version's
   * changes are read. Splits assigned and read but not yet reported finished count too: that errs
   * on the old side.
   */
  private long oldestNeeded() {
    long oldest = planned.version();
    for (LanceSplit split : pending) {
      oldest = Math.min(oldest, split.oldestVersionOpened(scan.changelog()));
    }
    for (LanceSplit split : inFlight.values()) {
      oldest = Math.min(oldest, split.oldestVersionOpened(scan.changelog()));
    }
    return oldest;
  }

  /** The newest version every split of which has been read (in a streaming read). */
  private long versionRead() {
    VersionMark position = planned;
    long read = position == null ? -1 : position.version();
    if (!pending.isEmpty()) {
      read = Math.min(read, pending.first().version() - 1);
    }
    for (LanceSplit split : inFlight.values()) {
      read = Math.min(read, split.version() - 1);
    }
    return read;
  }
}
