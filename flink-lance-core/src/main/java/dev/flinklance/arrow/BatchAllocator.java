package dev.flinklance.arrow;

import org.apache.arrow.memory.RootAllocator;

/** A writer's root allocator over its {@link RecycledBlocks}, which it frees when closed. */
final class BatchAllocator extends RootAllocator {
  private final RecycledBlocks blocks;

  private BatchAllocator(RecycledBlocks blocks) {
    super(
        RootAllocator.configBuilder()
            .allocationManagerFactory(MallocAllocationManager.factory(blocks))
            .build());
    this.blocks = blocks;
  }

  BatchAllocator(long limitBytes) {
    this(new RecycledBlocks(limitBytes));
  }

  RecycledBlocks blocks() {
    return blocks;
  }

  @Override
  public void close() {
    try {
      super.close();
    } finally {
      blocks.close();
    }
  }
}
