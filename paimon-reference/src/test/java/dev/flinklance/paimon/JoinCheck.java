package dev.flinklance.paimon;

import java.util.Arrays;
import java.util.Objects;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.accumulators.LongCounter;
import org.apache.flink.api.common.accumulators.LongMaximum;
import org.apache.flink.api.common.accumulators.LongMinimum;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.types.Row;

/**
 * Checks each joined row (seq, k, tier, score, embedding) where the join emits it: k is the key
 * record seq looks up, the rest the feature row of k. Counts the rows, a hash of their seqs (so
 * that a record joined twice and another missed show) and the wrong ones, and notes when the first
 * and the last row came, in accumulators read when the job has ended.
 */
final class JoinCheck extends RichMapFunction<Row, Boolean> {
  private static final long serialVersionUID = 1L;

  private final Features features;
  private final long heapEvery;
  private transient long seen;
  private transient LongMaximum heap;
  private transient LongCounter rows;
  private transient LongCounter seqHash;
  private transient LongCounter wrong;
  private transient LongMinimum first;
  private transient LongMaximum last;

  /**
   * @param heapEvery if positive, the heap used after a GC is noted (accumulator "heap", the most)
   *     at this subtask's first joined row and every {@code heapEvery} rows after it: a row joined
   *     means the lookup table is ready, its cache loaded (for untimed jobs only)
   */
  JoinCheck(Features features, long heapEvery) {
    this.features = features;
    this.heapEvery = heapEvery;
  }

  /** What the accumulators of a job say. */
  record Outcome(long rows, long seqHash, long wrong, long firstMillis, long lastMillis) {
    static Outcome of(JobExecutionResult result) {
      return new Outcome(
          result.getAccumulatorResult("rows"),
          result.getAccumulatorResult("seqHash"),
          result.getAccumulatorResult("wrong"),
          result.getAccumulatorResult("first"),
          result.getAccumulatorResult("last"));
    }

    /** Null if the rows are those of {@code records} records, else what differs. */
    String difference(long records) {
      if (wrong > 0) {
        return wrong + " rows with other columns than the key's feature row";
      }
      return rows == records && seqHash == expectedHash(records)
          ? null
          : rows + " rows joined, expected one for each of " + records + " records";
    }
  }

  static long expectedHash(long records) {
    long hash = 0;
    for (long seq = 0; seq < records; seq++) {
      hash += Changes.mix(seq);
    }
    return hash;
  }

  @Override
  public void open(OpenContext context) {
    rows = getRuntimeContext().getLongCounter("rows");
    seqHash = getRuntimeContext().getLongCounter("seqHash");
    wrong = getRuntimeContext().getLongCounter("wrong");
    first = new LongMinimum();
    last = new LongMaximum();
    getRuntimeContext().addAccumulator("first", first);
    getRuntimeContext().addAccumulator("last", last);
    heap = new LongMaximum();
    getRuntimeContext().addAccumulator("heap", heap);
  }

  @Override
  public Boolean map(Row joined) {
    if (heapEvery > 0 && seen++ % heapEvery == 0) {
      heap.add(usedHeapAfterGc());
    }
    long now = System.currentTimeMillis();
    first.add(now);
    last.add(now);
    long seq = (Long) joined.getField(0);
    long k = (Long) joined.getField(1);
    Row expected = Features.row(k);
    boolean right =
        k == features.key(seq)
            && Objects.equals(joined.getField(2), expected.getField(1))
            && Objects.equals(joined.getField(3), expected.getField(2))
            && Arrays.equals((Object[]) joined.getField(4), (Object[]) expected.getField(3));
    rows.add(1);
    seqHash.add(Changes.mix(seq));
    if (!right) {
      wrong.add(1);
    }
    return right;
  }

  static long usedHeapAfterGc() {
    System.gc();
    Runtime runtime = Runtime.getRuntime();
    return runtime.totalMemory() - runtime.freeMemory();
  }
}
