package dev.flinklance.sink.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flinklance.sink.compat.WriterInitSink;
import dev.flinklance.testing.TestClusters;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.api.connector.sink2.CommitterInitContext;
import org.apache.flink.api.connector.sink2.CommittingSinkWriter;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.SupportsCommitter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.SinkOptions;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Pins what Flink 2.2 does with {@code CommitRequest.retryLater()}, which the committer's retry
 * design rests on (docs/architecture.md, "Commit retries"): Flink calls {@code Committer.commit}
 * again at once, in the same loop of {@code CheckpointCommittableManagerImpl.commit} on the task
 * thread, 10 times ({@code sink.committer.retries}'s default, whatever the job sets), and then
 * fails the task. A Flink version that delays the retries (through a timer or the mailbox, which
 * changes the calling frames), retries more or less often, or stops failing the task fails this
 * test. The gaps between the calls are logged, not asserted.
 */
class FlinkRetryLaterITCase {
  private static final Logger LOG = LoggerFactory.getLogger(FlinkRetryLaterITCase.class);

  @RegisterExtension static final MiniClusterExtension CLUSTER = TestClusters.withoutRestarts();

  /**
   * One call of the committer: when, the Flink frames it came through, and whether the interrupt
   * flag the call before left set was still set (an interruptible wait in between, a sleep, would
   * have thrown and cleared it).
   */
  record Call(long nanos, String thread, List<String> callers, boolean stillInterrupted) {}

  static final List<Call> CALLS = new CopyOnWriteArrayList<>();

  @BeforeEach
  void clear() {
    CALLS.clear();
  }

  @Test
  void retryLaterIsRetriedAtOnceInOneLoopThenFailsTheTask() {
    assertThat(SinkOptions.COMMITTER_RETRIES.defaultValue()).isEqualTo(10);
    assertThatThrownBy(() -> run(new Configuration()))
        .rootCause()
        .isInstanceOf(IOException.class)
        .hasMessageStartingWith("Failed to commit 1 committables after 10 retries");
    assertRetriedAtOnce(11);
  }

  /**
   * Flink 2.2's committer reads {@code sink.committer.retries} from its operator's own stream
   * configuration, which nothing fills in: set on the job, the option changes nothing, and every
   * sink gets 10 immediate retries. A Flink version that honours it fails this test.
   */
  @Test
  void sinkCommitterRetriesSetOnTheJobIsIgnored() {
    Configuration three = new Configuration();
    three.set(SinkOptions.COMMITTER_RETRIES, 3);
    assertThatThrownBy(() -> run(three))
        .rootCause()
        .hasMessageStartingWith("Failed to commit 1 committables after 10 retries");
    assertRetriedAtOnce(11);
  }

  private static void assertRetriedAtOnce(int calls) {
    assertThat(CALLS).hasSize(calls);
    assertThat(CALLS).extracting(Call::thread).containsOnly(CALLS.get(0).thread());
    // every call through the same frames, from one loop: nothing ran between them
    assertThat(CALLS).extracting(Call::callers).containsOnly(CALLS.get(0).callers());
    assertThat(CALLS.subList(1, calls))
        .as("no interruptible wait between the calls")
        .extracting(Call::stillInterrupted)
        .containsOnly(true);
    assertThat(CALLS.get(0).callers().get(0))
        .startsWith(
            "org.apache.flink.streaming.runtime.operators.sink.committables"
                + ".CheckpointCommittableManagerImpl.commit");
    List<Long> gapsMicros = new ArrayList<>();
    for (int i = 1; i < CALLS.size(); i++) {
      gapsMicros.add((CALLS.get(i).nanos() - CALLS.get(i - 1).nanos()) / 1_000);
    }
    LOG.info("Flink's retryLater: {} calls, gaps between them (µs): {}", CALLS.size(), gapsMicros);
  }

  private static void run(Configuration config) throws Exception {
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(config);
    env.setParallelism(1);
    env.enableCheckpointing(100);
    env.fromData(1L, 2L, 3L).sinkTo(new RetryLaterSink());
    env.execute("retryLater");
  }

  /** A sink with one committable per checkpoint that had records; its committer always defers. */
  static final class RetryLaterSink implements WriterInitSink<Long>, SupportsCommitter<Long> {
    private static final long serialVersionUID = 1L;

    @Override
    public SinkWriter<Long> createWriter(WriterInitContext context) {
      return new CommittingSinkWriter<Long, Long>() {
        private long count;

        @Override
        public void write(Long element, Context context) {
          count++;
        }

        @Override
        public Collection<Long> prepareCommit() {
          List<Long> committables = count == 0 ? List.of() : List.of(count);
          count = 0;
          return committables;
        }

        @Override
        public void flush(boolean endOfInput) {}

        @Override
        public void close() {}
      };
    }

    @Override
    public Committer<Long> createCommitter(CommitterInitContext context) {
      return new Committer<>() {
        @Override
        public void commit(Collection<CommitRequest<Long>> requests) {
          StackTraceElement[] stack = new Throwable().getStackTrace();
          List<String> callers =
              Arrays.stream(stack, 1, Math.min(stack.length, 6))
                  .map(f -> f.getClassName() + "." + f.getMethodName() + ":" + f.getLineNumber())
                  .toList();
          boolean stillInterrupted = Thread.interrupted();
          CALLS.add(
              new Call(
                  System.nanoTime(), Thread.currentThread().getName(), callers, stillInterrupted));
          requests.forEach(CommitRequest::retryLater);
          Thread.currentThread().interrupt();
        }

        @Override
        public void close() {}
      };
    }

    @Override
    public SimpleVersionedSerializer<Long> getCommittableSerializer() {
      return new SimpleVersionedSerializer<>() {
        @Override
        public int getVersion() {
          return 1;
        }

        @Override
        public byte[] serialize(Long committable) {
          return ByteBuffer.allocate(Long.BYTES).putLong(committable).array();
        }

        @Override
        public Long deserialize(int version, byte[] serialized) {
          return ByteBuffer.wrap(serialized).getLong();
        }
      };
    }
  }
}
