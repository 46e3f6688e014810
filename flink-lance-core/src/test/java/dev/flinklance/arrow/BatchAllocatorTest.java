package dev.flinklance.arrow;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.Float4Vector;
import org.junit.jupiter.api.Test;

/** A writer's batch memory: freed batch buffers serve the next batch, within the writer's limit. */
class BatchAllocatorTest {
  private static final long MIB = 1 << 20;

  @Test
  void aFreedBatchBufferServesTheNextRequestOfItsSize() {
    try (BatchAllocator allocator = (BatchAllocator) Allocators.forBatches(64 * MIB)) {
      ArrowBuf first = allocator.buffer(4 * MIB);
      long address = first.memoryAddress();
      first.close();
      assertThat(allocator.blocks().keptBytes()).isEqualTo(4 * MIB);

      try (ArrowBuf second = allocator.buffer(4 * MIB)) {
        assertThat(second.memoryAddress()).isEqualTo(address);
        assertThat(allocator.blocks().keptBytes()).isZero();
      }
      try (ArrowBuf small = allocator.buffer(RecycledBlocks.MIN_KEPT_BYTES / 2)) {
        assertThat(small.capacity()).isPositive();
      }
      assertThat(allocator.blocks().keptBytes())
          .as("the 4 MiB block again, not the small one")
          .isEqualTo(4 * MIB);
    }
  }

  @Test
  void whatIsKeptPlusWhatIsInUseStaysWithinTheLimit() {
    try (BatchAllocator allocator = (BatchAllocator) Allocators.forBatches(10 * MIB)) {
      List<ArrowBuf> buffers = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        buffers.add(allocator.buffer(4 * MIB));
      }
      buffers.forEach(ArrowBuf::close);
      assertThat(allocator.blocks().keptBytes()).isEqualTo(8 * MIB);

      // a size nobody freed, which would cross the limit with what is kept: the kept blocks go
      try (ArrowBuf other = allocator.buffer(6 * MIB)) {
        assertThat(allocator.blocks().keptBytes()).isZero();
      }
    }
  }

  @Test
  void aReusedBufferIsZeroedByTheVectorThatTakesIt() {
    try (BatchAllocator allocator = (BatchAllocator) Allocators.forBatches(64 * MIB)) {
      int values = (int) (2 * MIB / Float.BYTES);
      try (Float4Vector vector = new Float4Vector("v", allocator)) {
        vector.allocateNew(values);
        for (int i = 0; i < values; i++) {
          vector.set(i, 1f);
        }
      }
      assertThat(allocator.blocks().keptBytes()).isPositive();
      try (Float4Vector vector = new Float4Vector("v", allocator)) {
        vector.allocateNew(values);
        vector.setValueCount(values);
        assertThat(vector.isNull(0)).isTrue();
        assertThat(vector.isNull(values - 1)).isTrue();
        assertThat(vector.getDataBuffer().getFloat(0)).isZero();
      }
    }
  }

  @Test
  void closingFreesWhatIsKept() {
    BatchAllocator allocator = (BatchAllocator) Allocators.forBatches(64 * MIB);
    allocator.buffer(4 * MIB).close();
    assertThat(allocator.blocks().keptBytes()).isEqualTo(4 * MIB);
    allocator.close();
    assertThat(allocator.blocks().keptBytes()).isZero();
  }
}
