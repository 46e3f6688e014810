package dev.flinklance.table.testing;

import org.apache.flink.streaming.api.functions.source.RichParallelSourceFunction;

/** Flink's legacy parallel source function, which Flink 2.0 moved to another package. */
abstract class ParallelTestSource<T> extends RichParallelSourceFunction<T> {
  private static final long serialVersionUID = 1L;
}
