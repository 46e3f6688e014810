package dev.flinklance.arrow;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import org.apache.arrow.memory.util.MemoryUtil;

/**
 * The memory of one writer's batches: blocks from {@code malloc}, and the large ones kept when
 * freed, for the next batch, which asks for the same sizes (it is allocated for the rows of the one
 * before). Fresh memory costs a page fault per page, with the kernel zeroing it: without reuse a
 * fifth to a quarter of a writer's time, as glibc returns big freed blocks to the kernel (blocks of
 * 32 MiB and more always, smaller ones when the heap's top is trimmed).
 *
 * <p>Blocks are kept only while the memory in use plus the memory kept stays within the writer's
 * limit ({@code sink.max-buffer-size}); a request that finds no block of its size and would cross
 * the limit frees what is kept first. Lance frees the blocks it was handed on its own threads,
 * hence the lock.
 */
final class RecycledBlocks {
  /** Smaller blocks come and go cheaply through malloc's own free lists. */
  static final long MIN_KEPT_BYTES = 1 << 20;

  private final long limitBytes;
  private final Map<Long, ArrayDeque<Long>> kept = new HashMap<>();
  private long keptBytes;
  private long usedBytes;
  private boolean closed;

  RecycledBlocks(long limitBytes) {
    this.limitBytes = limitBytes;
  }

  synchronized long allocate(long size) {
    ArrayDeque<Long> sameSize = kept.get(size);
    long address;
    if (sameSize != null && !sameSize.isEmpty()) {
      address = sameSize.pop();
      keptBytes -= size;
    } else {
      if (usedBytes + keptBytes + size > limitBytes) {
        freeKept();
      }
      address = MemoryUtil.allocateMemory(size);
    }
    usedBytes += size;
    return address;
  }

  synchronized void free(long address, long size) {
    usedBytes -= size;
    if (!closed && size >= MIN_KEPT_BYTES && usedBytes + keptBytes + size <= limitBytes) {
      kept.computeIfAbsent(size, s -> new ArrayDeque<>()).push(address);
      keptBytes += size;
    } else {
      MemoryUtil.freeMemory(address);
    }
  }

  synchronized long keptBytes() {
    return keptBytes;
  }

  /** Frees what is kept; blocks in use are freed as they come back. */
  synchronized void close() {
    closed = true;
    freeKept();
  }

  private void freeKept() {
    kept.values().forEach(blocks -> blocks.forEach(MemoryUtil::freeMemory));
    kept.clear();
    keptBytes = 0;
  }
}
