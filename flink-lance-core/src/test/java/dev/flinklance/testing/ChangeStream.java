package dev.flinklance.testing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.apache.flink.api.common.JobID;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.util.CloseableIterator;

/**
 * The rows of an unbounded job, collected on a thread of their own while the test writes the table:
 * {@link #take} waits for the next rows, {@link #close} cancels the job.
 */
public final class ChangeStream implements AutoCloseable {
  private static final Duration WAIT = Duration.ofSeconds(90);

  private final BlockingQueue<String> rows = new LinkedBlockingQueue<>();
  private final AtomicReference<Throwable> failure = new AtomicReference<>();
  private final CloseableIterator<?> iterator;
  private final JobClient job;
  private final Thread collector;

  private <T> ChangeStream(
      CloseableIterator<T> iterator, JobClient job, Function<T, String> format) {
    this.iterator = iterator;
    this.job = job;
    this.collector =
        new Thread(
            () -> {
              try {
                iterator.forEachRemaining(row -> rows.add(format.apply(row)));
              } catch (Throwable t) {
                failure.set(t);
              }
            },
            "change-stream-collector");
    collector.setDaemon(true);
    collector.start();
  }

  /**
   * Starts the job of {@code env} that ends in {@code stream}; each row is formatted at once (rows
   * are views that do not last).
   */
  public static ChangeStream start(
      StreamExecutionEnvironment env, DataStream<RowData> stream, Function<RowData, String> format)
      throws Exception {
    CloseableIterator<RowData> iterator = stream.collectAsync();
    return new ChangeStream(iterator, env.executeAsync(), format);
  }

  /**
   * Collects the rows of a running {@code job} (a SQL query's, say, whose rows the table API
   * collects), each formatted at once.
   */
  public static <T> ChangeStream start(
      CloseableIterator<T> rows, JobClient job, Function<T, String> format) {
    return new ChangeStream(rows, job, format);
  }

  public JobID jobId() {
    return job.getJobID();
  }

  /**
   * The next {@code count} rows.
   *
   * @throws AssertionError if they do not all come within 90 s, or the job failed
   */
  public List<String> take(int count) throws InterruptedException {
    List<String> taken = new ArrayList<>(count);
    Await.until(
        count + " rows",
        WAIT,
        () -> {
          collect(taken, count - taken.size()); // rows beyond count are left for the next take
          return taken.size() == count;
        },
        () -> "only " + taken.size() + " came: " + taken);
    return taken;
  }

  /**
   * Every row that comes until {@code done} holds for all rows taken by this call.
   *
   * @throws AssertionError if that takes more than 90 s, or the job failed
   */
  public List<String> takeUntil(java.util.function.Predicate<List<String>> done)
      throws InterruptedException {
    List<String> taken = new ArrayList<>();
    Await.until(
        "rows that satisfy the condition",
        WAIT,
        () -> {
          collect(taken, Integer.MAX_VALUE);
          return done.test(taken);
        },
        () -> "the rows so far: " + taken);
    return taken;
  }

  /**
   * Moves up to {@code max} rows that came into {@code taken}.
   *
   * @throws AssertionError if none had come and the job failed
   */
  private void collect(List<String> taken, int max) {
    if (max > 0 && rows.drainTo(taken, max) == 0 && failure.get() != null) {
      throw new AssertionError("the job failed after " + taken + " rows", failure.get());
    }
  }

  /** Rows that came but were not taken yet, after waiting {@code quiet} for more. */
  public List<String> more(Duration quiet) throws InterruptedException {
    Thread.sleep(quiet.toMillis());
    List<String> extra = new ArrayList<>();
    rows.drainTo(extra);
    return extra;
  }

  /** The job's failure: waits for it to fail. */
  public Throwable failure() throws InterruptedException {
    collector.join(WAIT.toMillis());
    if (failure.get() == null) {
      throw new AssertionError("the job did not fail; rows: " + rows);
    }
    return failure.get();
  }

  @Override
  public void close() throws Exception {
    iterator.close();
    collector.join(WAIT.toMillis());
  }
}
