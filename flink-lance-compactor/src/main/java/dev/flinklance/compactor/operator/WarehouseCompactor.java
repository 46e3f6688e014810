package dev.flinklance.compactor.operator;

import dev.flinklance.access.TableRef;
import dev.flinklance.access.Warehouse;
import dev.flinklance.compactor.CompactionConfig;
import dev.flinklance.compactor.commit.CompactionSummary;
import dev.flinklance.compactor.compat.ParameterizedStreamOperator;
import dev.flinklance.maintenance.TableCommit;
import dev.flinklance.metrics.LanceMetrics;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.operators.MailboxExecutor;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.operators.StreamOperatorParameters;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Compaction of the many tables of one warehouse behind the dynamic sink: counts each table's
 * commits and, on each commit and timer, passes over the tables whose triggers may fire, one {@link
 * TablePass} at a time in the background. Tables arrive keyed, so each has one compactor subtask
 * and its passes never race each other. Its state is none: after a restore the triggers count again
 * from zero (a compaction comes at most one trigger later), and a pass cut short is planned again.
 */
@Internal
public final class WarehouseCompactor extends ParameterizedStreamOperator<CompactionSummary>
    implements OneInputStreamOperator<TableCommit, CompactionSummary>, BoundedOneInput {
  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(WarehouseCompactor.class);
  private static final long MIN_TIMER_MILLIS = 100;

  private final Warehouse warehouse;
  private final Configuration options;
  private final CompactionConfig shared;
  private final MailboxExecutor mailbox;
  private final BackgroundWork background;
  private final Map<String, TableTriggers> tables = new HashMap<>();
  private final ArrayDeque<TableTriggers> queue = new ArrayDeque<>();
  private TableTriggers passing;
  private boolean ended;
  private Counter plans;
  private CompactionMetrics metrics;

  /** A table's trigger counts, and whether it waits for a pass. */
  private static final class TableTriggers {
    final TableRef table;
    final CompactionConfig config;
    long commitsSinceLast;
    long lastCompactionMillis;
    boolean queued;

    TableTriggers(TableRef table, CompactionConfig config, long now) {
      this.table = table;
      this.config = config;
      this.lastCompactionMillis = now;
    }
  }

  /** The compactor's factory: it needs the task's mailbox. */
  public static MailboxOperatorFactory<TableCommit, CompactionSummary> factory(
      Warehouse warehouse, Configuration options) {
    return new MailboxOperatorFactory<>(
        WarehouseCompactor.class,
        parameters -> new WarehouseCompactor(parameters, warehouse, options));
  }

  private WarehouseCompactor(
      StreamOperatorParameters<CompactionSummary> parameters,
      Warehouse warehouse,
      Configuration options) {
    super(parameters);
    this.warehouse = warehouse;
    this.options = options;
    this.shared = CompactionConfig.forTable(options, null);
    this.mailbox = parameters.getMailboxExecutor();
    this.background = new BackgroundWork("lance-warehouse-compactor", mailbox);
  }

  @Override
  public void open() throws Exception {
    super.open();
    MetricGroup group = getMetricGroup().addGroup(LanceMetrics.GROUP);
    metrics = new CompactionMetrics(group);
    plans = group.counter("compactionPlans");
    group.gauge("compactionTables", tables::size);
    group.gauge("compactionQueue", queue::size);
    scheduleTimer();
  }

  @Override
  public void processElement(StreamRecord<TableCommit> element) {
    TableCommit commit = element.getValue();
    long now = getProcessingTimeService().getCurrentProcessingTime();
    TableTriggers triggers =
        tables.computeIfAbsent(
            commit.key(),
            key -> {
              TableRef table = warehouse.table(commit.database(), commit.table());
              return new TableTriggers(table, CompactionConfig.forTable(options, table), now);
            });
    triggers.commitsSinceLast++;
    enqueue(triggers);
  }

  /** The interval trigger of tables that had commits since their last compaction. */
  private void scheduleTimer() {
    long period =
        Math.max(
            MIN_TIMER_MILLIS,
            Math.min(shared.triggerInterval().toMillis(), shared.timeout().toMillis()) / 2);
    getProcessingTimeService()
        .registerTimer(
            getProcessingTimeService().getCurrentProcessingTime() + period,
            time -> {
              long interval = shared.triggerInterval().toMillis();
              tables.values().stream()
                  .filter(t -> t.commitsSinceLast > 0 && time - t.lastCompactionMillis >= interval)
                  .forEach(this::enqueue);
              scheduleTimer();
            });
  }

  private void enqueue(TableTriggers triggers) {
    if (ended || triggers.queued) {
      return;
    }
    triggers.queued = true;
    queue.add(triggers);
    passNext();
  }

  private void passNext() {
    if (passing != null || queue.isEmpty()) {
      return;
    }
    TableTriggers triggers = queue.poll();
    triggers.queued = false;
    passing = triggers;
    long commits = triggers.commitsSinceLast;
    long now = getProcessingTimeService().getCurrentProcessingTime();
    long sinceLast = now - triggers.lastCompactionMillis;
    background.submit(
        "compaction pass of " + triggers.table,
        () -> TablePass.run(triggers.table, triggers.config, commits, sinceLast, now),
        result -> {
          passing = null;
          if (result.fired()) {
            triggers.commitsSinceLast -= commits; // those that came during the pass count on
            triggers.lastCompactionMillis = now;
          }
          if (result.finished() != null) {
            plans.inc();
            finished(triggers.table, result.finished());
          }
          passNext();
        },
        failure -> {
          passing = null;
          metrics.failed();
          LOG.warn(
              "Compaction of {} failed; its fragments are planned again later",
              triggers.table,
              failure);
          passNext();
        });
  }

  private void finished(TableRef table, TablePass.Finished finished) {
    metrics.finished(finished.summary());
    metrics.sideFilesDeleted(finished.sideFilesDeleted());
    LOG.info("Compaction of {} finished: {}", table, finished.summary());
    output.collect(new StreamRecord<>(finished.summary()));
  }

  /** Passes over the tables the last commits queued (a bounded job's end) before it ends. */
  @Override
  public void endInput() throws Exception {
    while (passing != null || !queue.isEmpty()) {
      mailbox.yield();
    }
    ended = true;
  }

  @Override
  public void close() throws Exception {
    if (!background.stop()) {
      LOG.warn("A compaction pass of {} is still running", passing == null ? "" : passing.table);
    }
    super.close();
  }
}
