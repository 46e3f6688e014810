package dev.flinklance.arrow;

import org.apache.arrow.memory.AllocationManager;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.ReferenceManager;
import org.apache.arrow.memory.util.MemoryUtil;

/**
 * Arrow memory straight from the C allocator ({@code malloc}), for the batches the sink fills and
 * hands to Lance. Arrow's default (Netty's pooled arenas) gives a multi-MiB batch buffer a fresh
 * chunk most of the time, freshly mapped pages that the kernel zeroes on first touch: page faults
 * were a fifth of the writer threads' CPU profile on narrow rows. glibc's malloc keeps freed blocks
 * of that size and hands them out again (its mmap threshold grows with the blocks freed), which
 * also cut the faults inside Lance's own encoder, as it allocates from the same heap.
 *
 * <p>Arrow's own {@code arrow-memory-unsafe} does this too, but on the classpath it becomes the
 * default allocation manager of every allocator in the JVM (Arrow prefers it to Netty's when both
 * are present); this one serves only the allocators {@link Allocators#forBatches} makes.
 */
final class MallocAllocationManager extends AllocationManager {
  private static final ArrowBuf EMPTY =
      new ArrowBuf(ReferenceManager.NO_OP, null, 0, MemoryUtil.allocateMemory(0));

  static final Factory FACTORY =
      new Factory() {
        @Override
        public AllocationManager create(BufferAllocator accountingAllocator, long size) {
          return new MallocAllocationManager(accountingAllocator, size);
        }

        @Override
        public ArrowBuf empty() {
          return EMPTY;
        }
      };

  private final long address;
  private final long size;

  private MallocAllocationManager(BufferAllocator accountingAllocator, long size) {
    super(accountingAllocator);
    this.address = MemoryUtil.allocateMemory(size);
    this.size = size;
  }

  @Override
  public long getSize() {
    return size;
  }

  @Override
  protected long memoryAddress() {
    return address;
  }

  @Override
  protected void release0() {
    MemoryUtil.freeMemory(address);
  }
}
