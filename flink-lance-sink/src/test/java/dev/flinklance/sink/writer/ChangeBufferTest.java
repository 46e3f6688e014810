package dev.flinklance.sink.writer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flinklance.arrow.Allocators;
import dev.flinklance.arrow.ArrowSchemaConverter;
import dev.flinklance.key.PrimaryKey;
import dev.flinklance.key.RowKey;
import dev.flinklance.sink.LanceSinkOptions;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.types.logical.RowType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The change buffer of a sink with a primary key, filled as its writer fills it: the memory it
 * reports is the Arrow memory it holds plus its keys, and that memory is mostly the rows' bytes, at
 * every row size from 100 B to 1 MB, with {@code sink.max-buffer-size} at its default and at its
 * minimum. Batches sized in rows of the last row's bytes once held 40 MB for one 40 KB row.
 */
class ChangeBufferTest {
  private static final RowType ROW_TYPE =
      (RowType)
          DataTypes.ROW(
                  DataTypes.FIELD("id", DataTypes.BIGINT().notNull()),
                  DataTypes.FIELD("payload", DataTypes.BYTES()))
              .getLogicalType();
  private static final PrimaryKey KEY = PrimaryKey.of(ROW_TYPE, List.of("id"), "t");
  private static final long MIB = 1 << 20;

  /** Arrow bytes of a row besides its value: the id, the value's offset, two validity bits. */
  private static final long ROW_OVERHEAD_BYTES = 8 + 4;

  @ParameterizedTest(name = "{0} B values, sink.max-buffer-size {1} MiB")
  @CsvSource({
    "100, 64",
    "1500, 64",
    "40000, 64",
    "1000000, 64",
    "100, 2",
    "1500, 2",
    "40000, 2",
    "1000000, 2"
  })
  void takesTheRowsThatFitItsLimit(int valueBytes, long writerBufferMib) {
    long limit = LanceSinkOptions.SINK_UPSERT_MAX_BUFFER_SIZE.defaultValue().getBytes();
    long writerBuffer = writerBufferMib * MIB;
    try (BufferAllocator allocator = Allocators.forBatches(writerBuffer);
        ChangeBuffer changes = buffer(allocator, writerBuffer)) {
      byte[] value = new byte[valueBytes];
      long rows = 0;
      long keyBytes = 0;
      while (changes.bytes() <= limit) { // as the writer checks after each change
        RowKey key = upsert(changes, rows, value);
        keyBytes += ChangeBuffer.KEY_OVERHEAD_BYTES + key.toString().length() * 2L;
        rows++;
      }
      assertThat(changes.compact()).as("nothing to drop").isFalse();

      assertThat(changes.bytes())
          .as("reported: the Arrow memory held and the keys")
          .isEqualTo(allocator.getAllocatedMemory() + keyBytes);
      long held = rows * (valueBytes + ROW_OVERHEAD_BYTES) + keyBytes;
      assertThat(held)
          .as("bytes of the %d rows and their keys when full", rows)
          .isGreaterThanOrEqualTo(changes.bytes() * 8 / 10);
    }
  }

  /**
   * Rows replaced by a later change of their key are dropped when the buffer is full, their memory
   * given back: a writer changing 100 keys of 40 KB again and again never fills its buffer.
   */
  @Test
  void rowsALaterChangeReplacedGiveTheirMemoryBack() {
    long limit = 32 * MIB;
    long writerBuffer = LanceSinkOptions.SINK_MAX_BUFFER_SIZE.defaultValue().getBytes();
    try (BufferAllocator allocator = Allocators.forBatches(writerBuffer);
        ChangeBuffer changes = buffer(allocator, writerBuffer)) {
      byte[] value = new byte[40_000];
      int compactions = 0;
      for (long change = 0; change < 5_000; change++) {
        upsert(changes, change % 100, value);
        if (changes.bytes() > limit) {
          assertThat(changes.compact()).as("change %d: replaced rows to drop", change).isTrue();
          assertThat(changes.bytes()).as("after dropping them").isLessThanOrEqualTo(limit);
          compactions++;
        }
      }
      assertThat(compactions).isGreaterThan(1);
      assertThat(changes.keys()).isEqualTo(100);
    }
  }

  private static ChangeBuffer buffer(BufferAllocator allocator, long writerBuffer) {
    return new ChangeBuffer(
        allocator,
        ROW_TYPE,
        ArrowSchemaConverter.toArrowSchema(ROW_TYPE, Map.of()),
        writerBuffer / 2); // as UpsertSinkWriter sizes it
  }

  private static RowKey upsert(ChangeBuffer changes, long id, byte[] value) {
    GenericRowData row = GenericRowData.of(id, value);
    RowKey key = KEY.keyOf(row);
    changes.upsert(key, row);
    return key;
  }
}
