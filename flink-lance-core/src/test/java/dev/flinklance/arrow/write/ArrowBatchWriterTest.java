package dev.flinklance.arrow.write;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flinklance.arrow.Allocators;
import dev.flinklance.arrow.ArrowSchemaConverter;
import dev.flinklance.arrow.InvalidValueException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericMapData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.RowType;
import org.junit.jupiter.api.Test;

/** A row that fails half-way leaves no trace: the sink can skip it and go on with the batch. */
class ArrowBatchWriterTest {
  private static final RowType TYPE =
      (RowType)
          DataTypes.ROW(
                  DataTypes.FIELD("id", DataTypes.BIGINT().notNull()),
                  DataTypes.FIELD("name", DataTypes.STRING()),
                  DataTypes.FIELD("tags", DataTypes.ARRAY(DataTypes.STRING())),
                  DataTypes.FIELD(
                      "point",
                      DataTypes.ROW(
                          DataTypes.FIELD("x", DataTypes.INT().notNull()),
                          DataTypes.FIELD("y", DataTypes.INT()))),
                  DataTypes.FIELD("attrs", DataTypes.MAP(DataTypes.STRING(), DataTypes.INT())),
                  DataTypes.FIELD("vec", DataTypes.ARRAY(DataTypes.FLOAT().notNull())))
              .getLogicalType();

  @Test
  void aRowThatFailsInItsLastColumnIsOverwrittenByTheNext() throws Exception {
    try (BufferAllocator allocator = new RootAllocator();
        ArrowBatchWriter batch =
            ArrowBatchWriter.create(
                TYPE, ArrowSchemaConverter.toArrowSchema(TYPE, Map.of("vec", 3)), allocator)) {
      batch.write(row(1, "one", 3));
      assertThatThrownBy(() -> batch.write(row(2, "a much longer name than the others", 4)))
          .isInstanceOf(InvalidValueException.class)
          .hasMessageContaining("vec");
      batch.write(row(3, "three", 3));

      VectorSchemaRoot root = batch.seal();
      assertThat(root.getRowCount()).isEqualTo(2);
      assertThat(values(root, 0)).isEqualTo(expectedValues(1, "one"));
      assertThat(values(root, 1)).isEqualTo(expectedValues(3, "three"));
    }
  }

  @Test
  void aRowThatFailsInANestedNotNullFieldIsOverwrittenByTheNext() throws Exception {
    try (BufferAllocator allocator = new RootAllocator();
        ArrowBatchWriter batch =
            ArrowBatchWriter.create(
                TYPE, ArrowSchemaConverter.toArrowSchema(TYPE, Map.of("vec", 3)), allocator)) {
      batch.write(row(1, "one", 3));
      GenericRowData bad = row(2, "two", 3);
      bad.setField(3, GenericRowData.of(null, 5));
      assertThatThrownBy(() -> batch.write(bad)).isInstanceOf(InvalidValueException.class);
      batch.write(row(3, "three", 3));

      VectorSchemaRoot root = batch.seal();
      assertThat(root.getRowCount()).isEqualTo(2);
      assertThat(values(root, 1)).isEqualTo(expectedValues(3, "three"));
    }
  }

  /**
   * The next row's nulls are nulls, also in the columns the failed row had already written: a
   * slot's validity bit set by the failed row must not survive into the row that takes its place.
   */
  @Test
  void theNextRowsNullsReplaceWhatAFailedRowWrote() throws Exception {
    try (BufferAllocator allocator = new RootAllocator();
        ArrowBatchWriter batch =
            ArrowBatchWriter.create(
                TYPE, ArrowSchemaConverter.toArrowSchema(TYPE, Map.of("vec", 3)), allocator)) {
      batch.write(row(1, "one", 3));
      assertThatThrownBy(() -> batch.write(row(2, "two", 4)))
          .isInstanceOf(InvalidValueException.class);
      GenericRowData nulls = GenericRowData.of(3L, null, null, null, null, null);
      nulls.setField(5, new GenericArrayData(new float[] {3, 3, 3}));
      batch.write(nulls);

      VectorSchemaRoot root = batch.seal();
      assertThat(root.getRowCount()).isEqualTo(2);
      assertThat(values(root, 1))
          .containsExactly("3", "null", "null", "null", "null", "[3.0,3.0,3.0]");
    }
  }

  private static GenericRowData row(long id, String name, int dimension) {
    float[] vector = new float[dimension];
    java.util.Arrays.fill(vector, id);
    return GenericRowData.of(
        id,
        StringData.fromString(name),
        new GenericArrayData(
            new Object[] {StringData.fromString(name + "-a"), StringData.fromString(name + "-b")}),
        GenericRowData.of((int) id, (int) id * 10),
        new GenericMapData(Map.of(StringData.fromString(name), (int) id)),
        new GenericArrayData(vector));
  }

  /** The row's values written alone into a fresh batch. */
  private static List<String> expectedValues(long id, String name) {
    try (BufferAllocator allocator = new RootAllocator();
        ArrowBatchWriter batch =
            ArrowBatchWriter.create(
                TYPE, ArrowSchemaConverter.toArrowSchema(TYPE, Map.of("vec", 3)), allocator)) {
      batch.write(row(id, name, 3));
      return values(batch.seal(), 0);
    }
  }

  private static List<String> values(VectorSchemaRoot root, int index) {
    List<String> values = new ArrayList<>();
    for (FieldVector vector : root.getFieldVectors()) {
      values.add(String.valueOf(vector.getObject(index)));
    }
    return values;
  }

  private static final RowType NARROW =
      (RowType)
          DataTypes.ROW(
                  DataTypes.FIELD("id", DataTypes.BIGINT().notNull()),
                  DataTypes.FIELD("ts", DataTypes.TIMESTAMP(3)),
                  DataTypes.FIELD("n", DataTypes.INT()),
                  DataTypes.FIELD("s", DataTypes.STRING()),
                  DataTypes.FIELD("d", DataTypes.DOUBLE()))
              .getLogicalType();

  /**
   * Strings reach the writer as Java strings, as bytes of their own, inside a binary row (a SQL
   * projection's), spread over two memory segments or off the heap: each is copied exactly, also
   * around nulls and across many batches of every size.
   */
  @Test
  void stringsFromEveryKindOfSegmentAndNumbersAcrossBatches() throws Exception {
    try (BufferAllocator allocator = new RootAllocator();
        ArrowBatchWriter batch =
            ArrowBatchWriter.create(
                NARROW, ArrowSchemaConverter.toArrowSchema(NARROW, Map.of()), allocator)) {
      int id = 0;
      for (int rows : new int[] {3_000, 50_000, 7, 100_000, 1}) {
        List<List<Object>> expected = new ArrayList<>();
        for (int i = 0; i < rows; i++, id++) {
          String text = id % 5 == 4 ? null : "s-" + id + "-\u00e9\u4e2d".repeat(id % 4);
          GenericRowData row =
              GenericRowData.of(
                  (long) id,
                  id % 7 == 0
                      ? null
                      : org.apache.flink.table.data.TimestampData.fromEpochMillis(id * 10L),
                  id % 3 == 0 ? null : id,
                  text == null ? null : string(text, id % 5),
                  id % 11 == 0 ? null : id / 4.0);
          batch.write(row);
          expected.add(
              java.util.Arrays.asList(
                  (long) id,
                  id % 7 == 0
                      ? null
                      : java.time.LocalDateTime.ofEpochSecond(
                          id / 100, (id % 100) * 10_000_000, java.time.ZoneOffset.UTC),
                  id % 3 == 0 ? null : id,
                  text,
                  id % 11 == 0 ? null : id / 4.0));
        }
        VectorSchemaRoot root = batch.seal();
        List<List<Object>> actual = new ArrayList<>();
        for (int i = 0; i < root.getRowCount(); i++) {
          List<Object> values = new ArrayList<>();
          for (FieldVector vector : root.getFieldVectors()) {
            Object value = vector.getObject(i);
            values.add(
                value == null
                    ? null
                    : value instanceof org.apache.arrow.vector.util.Text t ? t.toString() : value);
          }
          actual.add(values);
        }
        assertThat(actual).isEqualTo(expected);
        batch.reset(Long.MAX_VALUE, false);
      }
    }
  }

  /** {@code text} in one of the forms Flink hands strings on. */
  private static StringData string(String text, int form) {
    byte[] utf8 = text.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    switch (form) {
      case 0:
        return StringData.fromString(text);
      case 1:
        return StringData.fromBytes(utf8);
      case 2:
        { // inside a binary row, at an offset of a larger segment
          byte[] padded = new byte[utf8.length + 13];
          System.arraycopy(utf8, 0, padded, 7, utf8.length);
          return org.apache.flink.table.data.binary.BinaryStringData.fromAddress(
              new org.apache.flink.core.memory.MemorySegment[] {
                org.apache.flink.core.memory.MemorySegmentFactory.wrap(padded)
              },
              7,
              utf8.length);
        }
      default:
        { // split over two segments, and off the heap
          int half = utf8.length / 2;
          org.apache.flink.core.memory.MemorySegment first =
              org.apache.flink.core.memory.MemorySegmentFactory.allocateUnpooledOffHeapMemory(
                  Math.max(1, half));
          org.apache.flink.core.memory.MemorySegment second =
              org.apache.flink.core.memory.MemorySegmentFactory.wrap(new byte[utf8.length - half]);
          first.put(0, utf8, 0, half);
          second.put(0, utf8, half, utf8.length - half);
          return org.apache.flink.table.data.binary.BinaryStringData.fromAddress(
              new org.apache.flink.core.memory.MemorySegment[] {first, second}, 0, utf8.length);
        }
    }
  }

  /**
   * A batch that a checkpoint ended starts at half its rows, so the next grows once instead of
   * doubling from 1,024 rows, and never larger than that batch was.
   */
  @Test
  void aBatchIsSizedFromTheOneBefore() throws Exception {
    try (BufferAllocator allocator = new RootAllocator();
        ArrowBatchWriter batch =
            ArrowBatchWriter.create(
                NARROW, ArrowSchemaConverter.toArrowSchema(NARROW, Map.of()), allocator)) {
      assertThat(batch.seal().getVector("id").getValueCapacity()).isLessThan(2_048);
      batch.reset(Long.MAX_VALUE, false);
      for (int i = 0; i < 100_000; i++) {
        batch.write(GenericRowData.of((long) i, null, i, StringData.fromString("view"), 1.0));
      }
      batch.seal();
      long full = allocator.getAllocatedMemory();
      batch.reset(Long.MAX_VALUE, false);
      VectorSchemaRoot next = batch.seal();
      assertThat(next.getVector("id").getValueCapacity()).isBetween(50_000, 100_000);
      assertThat(
              ((org.apache.arrow.vector.VarCharVector) next.getVector("s"))
                  .getDataBuffer()
                  .capacity())
          .isBetween(4L * 50_000, 4L * 100_000);
      assertThat(allocator.getAllocatedMemory()).isLessThan(full);
    }
  }

  /**
   * A batch that ended full at its memory limit is followed by one of the same rows, which fills up
   * without growing (growing copies the batch and zeroes memory).
   */
  @Test
  void aBatchThatEndedFullIsFollowedByOneThatNeedsNoGrowth() throws Exception {
    long limit = 4L << 20;
    try (BufferAllocator allocator = new RootAllocator();
        ArrowBatchWriter batch =
            ArrowBatchWriter.create(
                NARROW, ArrowSchemaConverter.toArrowSchema(NARROW, Map.of()), allocator)) {
      int first = fillUntilFull(batch, allocator, limit);
      batch.seal();
      batch.reset(Long.MAX_VALUE, true);
      int capacity = batch.seal().getVector("id").getValueCapacity();
      assertThat(capacity).isGreaterThanOrEqualTo(first);
      batch.reset(Long.MAX_VALUE, true);

      int second = fillUntilFull(batch, allocator, limit);
      VectorSchemaRoot sealed = batch.seal();
      assertThat(second).isGreaterThanOrEqualTo(first);
      assertThat(sealed.getVector("id").getValueCapacity()).isEqualTo(capacity);

      // without room for a batch that large beside what Lance still holds: half again
      batch.reset(Long.MAX_VALUE, false);
      assertThat(batch.seal().getVector("id").getValueCapacity()).isLessThan(first);
    }
  }

  /**
   * A batch's values are not zeroed when it is allocated (its pages are touched once, by the
   * values): a null slot still holds zeros, also in memory a batch before held values in.
   */
  @Test
  void aNullSlotHoldsZerosInReusedMemory() throws Exception {
    try (BufferAllocator allocator = Allocators.forBatches(64L << 20);
        ArrowBatchWriter batch =
            ArrowBatchWriter.create(
                NARROW, ArrowSchemaConverter.toArrowSchema(NARROW, Map.of()), allocator)) {
      // blocks of 1 MiB and more are kept for the next batch, which takes them full of these rows
      int rows = fillUntilFull(batch, allocator, 32L << 20);
      batch.seal();
      batch.reset(Long.MAX_VALUE, true);
      for (int i = 0; i < rows; i++) {
        batch.write(GenericRowData.of((long) i, null, null, null, null));
      }
      VectorSchemaRoot root = batch.seal();
      for (String column : List.of("ts", "n", "d")) {
        BaseFixedWidthVector vector = (BaseFixedWidthVector) root.getVector(column);
        long bytes = (long) rows * vector.getTypeWidth();
        long firstNonZero = -1;
        for (long at = 0; at < bytes && firstNonZero < 0; at++) {
          firstNonZero = vector.getDataBuffer().getByte(at) != 0 ? at : -1;
        }
        assertThat(firstNonZero).as("first non-zero byte of %s", column).isEqualTo(-1);
        assertThat(vector.getNullCount()).isEqualTo(rows);
      }
    }
  }

  /**
   * Near its limit a batch grows a string column's offsets alone while the column's data buffer has
   * room, and ends before that buffer would double: every value of every batch reads back, and no
   * batch passes the limit.
   */
  @Test
  void valuesSurviveBatchesEndedByTheirStringsData() throws Exception {
    long limit = 1 << 20;
    try (BufferAllocator allocator = new RootAllocator();
        ArrowBatchWriter batch =
            ArrowBatchWriter.create(
                NARROW, ArrowSchemaConverter.toArrowSchema(NARROW, Map.of()), allocator)) {
      int first = 0;
      int batches = 0;
      for (int i = 0; i < 40_000; i++) {
        if (batch.nextRowWouldOutgrow(allocator.getAllocatedMemory(), limit)) {
          first = checkAndReset(batch, allocator, limit, first);
          batches++;
        }
        batch.write(GenericRowData.of((long) i, null, i, StringData.fromString(text(i)), 1.0));
      }
      checkAndReset(batch, allocator, limit, first);
      assertThat(batches).isGreaterThan(3);
    }
  }

  /** Row {@code i}'s string: 0 to 120 characters of its number, repeated. */
  private static String text(int i) {
    return (i + ";").repeat(121).substring(0, i % 121);
  }

  private static int checkAndReset(
      ArrowBatchWriter batch, BufferAllocator allocator, long limit, int first) {
    assertThat(allocator.getAllocatedMemory()).isLessThanOrEqualTo(limit);
    VectorSchemaRoot root = batch.seal();
    for (int row = 0; row < root.getRowCount(); row++) {
      assertThat(root.getVector("id").getObject(row)).isEqualTo((long) first + row);
      assertThat(root.getVector("s").getObject(row).toString()).isEqualTo(text(first + row));
    }
    int next = first + root.getRowCount();
    batch.reset(limit, true);
    return next;
  }

  private static int fillUntilFull(ArrowBatchWriter batch, BufferAllocator allocator, long limit) {
    for (int i = 0; ; i++) {
      if (batch.nextRowWouldOutgrow(allocator.getAllocatedMemory(), limit)) {
        return batch.rowCount();
      }
      batch.write(GenericRowData.of((long) i, null, i, StringData.fromString("view"), 1.0));
    }
  }
}
