package dev.flinklance.sink.bench;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.TimeStampMilliVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.RowType;

/**
 * Narrow event rows, one deterministic function of the id, as Flink rows (the jobs' input) or
 * straight into Arrow (the raw baselines): {@code id BIGINT, ts TIMESTAMP(3), user_id INT, action
 * STRING, value DOUBLE}. Timestamps advance about 10 ms a row, users are spread over a million ids,
 * actions are skewed over eight names of at most 10 bytes, values are amounts in cents; strings are
 * binary UTF-8 as a deserializer or a SQL projection hands them on.
 */
final class NarrowRows {
  static final RowType ROW_TYPE =
      (RowType)
          DataTypes.ROW(
                  DataTypes.FIELD("id", DataTypes.BIGINT().notNull()),
                  DataTypes.FIELD("ts", DataTypes.TIMESTAMP(3)),
                  DataTypes.FIELD("user_id", DataTypes.INT()),
                  DataTypes.FIELD("action", DataTypes.STRING()),
                  DataTypes.FIELD("value", DataTypes.DOUBLE()))
              .notNull()
              .getLogicalType();

  /** The Arrow schema the sink creates for {@link #ROW_TYPE}. */
  static final Schema ARROW_SCHEMA =
      new Schema(
          List.of(
              Field.notNullable("id", new ArrowType.Int(64, true)),
              Field.nullable("ts", new ArrowType.Timestamp(TimeUnit.MILLISECOND, null)),
              Field.nullable("user_id", new ArrowType.Int(32, true)),
              Field.nullable("action", ArrowType.Utf8.INSTANCE),
              Field.nullable("value", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE))));

  /** Bytes of a row in Flink's fixed-width form plus an average action: the MB/s basis. */
  static final int ROW_BYTES = 8 + 8 + 4 + 6 + 8;

  private static final long START_MILLIS = 1_767_225_600_000L; // 2026-01-01T00:00:00Z

  private static final byte[][] ACTIONS =
      java.util.stream.Stream.of(
              "view",
              "view",
              "view",
              "view",
              "click",
              "click",
              "scroll",
              "search",
              "add_cart",
              "wishlist",
              "purchase",
              "share")
          .map(name -> name.getBytes(StandardCharsets.UTF_8))
          .toArray(byte[][]::new);

  private static final StringData[] ACTION_STRINGS =
      java.util.Arrays.stream(ACTIONS).map(StringData::fromBytes).toArray(StringData[]::new);

  private NarrowRows() {}

  /** A well-mixed 64-bit hash of the id (SplitMix64's finaliser). */
  private static long mix(long id) {
    long z = id * 0x9E3779B97F4A7C15L;
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  static long ts(long id) {
    return START_MILLIS + id * 10 + (mix(id) & 7);
  }

  static int userId(long id) {
    return (int) ((mix(id) >>> 8) % 1_000_000);
  }

  static int action(long id) {
    return (int) ((mix(id) >>> 40) % ACTIONS.length);
  }

  static double value(long id) {
    return ((mix(id) >>> 44) % 100_000) / 100.0;
  }

  static RowData row(long id) {
    return GenericRowData.of(
        id,
        TimestampData.fromEpochMillis(ts(id)),
        userId(id),
        ACTION_STRINGS[action(id)],
        value(id));
  }

  /**
   * Fills {@code root} with rows {@code from} (inclusive) to {@code to} (exclusive) the fastest way
   * we know with Arrow directly: vectors sized for the batch (kept when they are big enough),
   * unchecked setters, string bytes written straight into the data buffer.
   */
  static void fill(VectorSchemaRoot root, long from, long to) {
    int rows = (int) (to - from);
    BigIntVector ids = (BigIntVector) root.getVector("id");
    TimeStampMilliVector timestamps = (TimeStampMilliVector) root.getVector("ts");
    IntVector users = (IntVector) root.getVector("user_id");
    VarCharVector actions = (VarCharVector) root.getVector("action");
    Float8Vector values = (Float8Vector) root.getVector("value");
    if (ids.getValueCapacity() < rows || actions.getByteCapacity() < rows * 10L) {
      for (FieldVector vector : root.getFieldVectors()) {
        vector.setInitialCapacity(rows);
      }
      actions.setInitialCapacity(rows, 10);
      root.allocateNew();
    } else {
      for (FieldVector vector : root.getFieldVectors()) {
        vector.reset();
      }
    }
    int index = 0;
    for (long id = from; id < to; id++, index++) {
      ids.set(index, id);
      timestamps.set(index, ts(id));
      users.set(index, userId(id));
      actions.set(index, ACTIONS[action(id)]);
      values.set(index, value(id));
    }
    root.setRowCount(index);
  }
}
