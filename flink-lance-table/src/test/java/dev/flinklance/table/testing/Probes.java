package dev.flinklance.table.testing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;

/**
 * The probe side of a lookup join that the test drives: each source subtask emits the probes the
 * test hands to it, when it hands them, so that the test knows which lookup task (the join is
 * chained to its source subtask) looks up what, and between which table changes. Probes are {@code
 * (subtask INT, seq BIGINT, id BIGINT, tenant STRING, region INT)} plus {@code proc_time}. The
 * MiniCluster runs in the test's JVM, so the queues are shared through a static map.
 */
public final class Probes implements AutoCloseable {
  public static final TypeInformation<Row> TYPE =
      Types.ROW_NAMED(
          new String[] {"subtask", "seq", "id", "tenant", "region"},
          Types.INT,
          Types.LONG,
          Types.LONG,
          Types.STRING,
          Types.INT);

  private static final Map<String, List<BlockingQueue<Row>>> QUEUES = new ConcurrentHashMap<>();
  private static final Row END = Row.of(-1, -1L, null, null, null);

  private final String id = UUID.randomUUID().toString();
  private final int subtasks;

  public Probes(int subtasks) {
    this.subtasks = subtasks;
    List<BlockingQueue<Row>> queues = new ArrayList<>();
    for (int i = 0; i < subtasks; i++) {
      queues.add(new LinkedBlockingQueue<>());
    }
    QUEUES.put(id, queues);
  }

  /** Registers the probes as table {@code name} of {@code env}, with a processing-time column. */
  public void register(StreamExecutionEnvironment env, StreamTableEnvironment tables, String name) {
    DataStream<Row> stream = env.addSource(new Source(id), "probes", TYPE).setParallelism(subtasks);
    Table table =
        tables.fromDataStream(
            stream, Schema.newBuilder().columnByExpression("proc_time", "PROCTIME()").build());
    tables.createTemporaryView(name, table);
  }

  /** Hands a probe to a subtask; {@code subtask} and {@code seq} are the probe's first fields. */
  public void send(Row probe) {
    QUEUES.get(id).get((Integer) probe.getField(0)).add(probe);
  }

  /** Ends every subtask, and so the job. */
  public void end() {
    QUEUES.get(id).forEach(queue -> queue.add(END));
  }

  @Override
  public void close() {
    QUEUES.remove(id);
  }

  private static final class Source extends ParallelTestSource<Row> {
    private static final long serialVersionUID = 1L;
    private final String id;
    private volatile boolean running = true;

    Source(String id) {
      this.id = id;
    }

    @Override
    public void run(SourceContext<Row> context) throws Exception {
      BlockingQueue<Row> queue =
          QUEUES.get(id).get(getRuntimeContext().getTaskInfo().getIndexOfThisSubtask());
      while (running) {
        Row probe = queue.poll(Duration.ofMillis(100).toMillis(), TimeUnit.MILLISECONDS);
        if (probe == END) {
          return;
        }
        if (probe != null) {
          synchronized (context.getCheckpointLock()) {
            context.collect(probe);
          }
        }
      }
    }

    @Override
    public void cancel() {
      running = false;
    }
  }
}
