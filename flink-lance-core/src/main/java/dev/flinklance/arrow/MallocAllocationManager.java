package dev.flinklance.arrow;

import org.apache.arrow.memory.AllocationManager;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.ReferenceManager;
import org.apache.arrow.memory.util.MemoryUtil;

/**
 * Arrow memory from {@code malloc}, through a writer's {@link RecycledBlocks}, for the batches the
 * sink fills and hands to Lance. Arrow's default (Netty's pooled arenas) gave most multi-MiB batch
 * buffers a fresh chunk, freshly mapped pages that the kernel zeroes on first touch: page faults
 * were a fifth of the writer threads' CPU profile on narrow rows.
 *
 * <p>Arrow's own {@code arrow-memory-unsafe} allocates from malloc too, but on the classpath it
 * becomes the default allocation manager of every allocator in the JVM (Arrow prefers it to Netty's
 * when both are present), and it keeps nothing for reuse.
 */
final class MallocAllocationManager extends AllocationManager {
  private static final ArrowBuf EMPTY =
      new ArrowBuf(ReferenceManager.NO_OP, null, 0, MemoryUtil.allocateMemory(0));

  private final RecycledBlocks blocks;
  private final long address;
  private final long size;

  private MallocAllocationManager(
      BufferAllocator accountingAllocator, RecycledBlocks blocks, long size) {
    super(accountingAllocator);
    this.blocks = blocks;
    this.address = blocks.allocate(size);
    this.size = size;
  }

  static Factory factory(RecycledBlocks blocks) {
    return new Factory() {
      @Override
      public AllocationManager create(BufferAllocator accountingAllocator, long size) {
        return new MallocAllocationManager(accountingAllocator, blocks, size);
      }

      @Override
      public ArrowBuf empty() {
        return EMPTY;
      }
    };
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
    blocks.free(address, size);
  }
}
