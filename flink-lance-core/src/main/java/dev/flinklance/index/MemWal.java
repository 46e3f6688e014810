package dev.flinklance.index;

import dev.flinklance.errors.LanceCalls;
import org.apache.flink.annotation.Internal;
import org.lance.Dataset;

/**
 * Lance's MemWAL on a table: an LSM write-ahead log that another client set up (its index is named
 * {@value #INDEX}). lance-core 7.0.0 cannot compact such a table: {@code Dataset.compact()} and
 * {@code Compaction.commitCompaction} panic in native code and abort the JVM (exit 134), which
 * takes a TaskManager down with every job on it; {@code describeIndices()} fails on it too. The
 * compactor leaves such tables alone.
 */
@Internal
public final class MemWal {
  public static final String INDEX = "__lance_mem_wal";

  private MemWal() {}

  /** Whether {@code dataset}'s version has a MemWAL. */
  public static boolean isOn(Dataset dataset) {
    return LanceCalls.call(dataset.uri(), "cannot list the indexes", dataset::listIndexes)
        .contains(INDEX);
  }
}
