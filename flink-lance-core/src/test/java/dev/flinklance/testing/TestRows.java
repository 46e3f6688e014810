package dev.flinklance.testing;

import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.RowType;

/** The small schema most sink tests write: {@code id BIGINT NOT NULL, name STRING}. */
public final class TestRows {
  public static final RowType ROW_TYPE =
      (RowType)
          DataTypes.ROW(
                  DataTypes.FIELD("id", DataTypes.BIGINT().notNull()),
                  DataTypes.FIELD("name", DataTypes.STRING()))
              .notNull()
              .getLogicalType();

  public static final InternalTypeInfo<RowData> TYPE_INFO = InternalTypeInfo.of(ROW_TYPE);

  private TestRows() {}

  public static RowData row(long id) {
    return GenericRowData.of(id, StringData.fromString("name-" + id));
  }

  /** A row of this schema as a change, {@code +I[3, name-3]}: its kind, id and name. */
  public static String change(RowData row) {
    return row.getRowKind().shortString() + "[" + row.getLong(0) + ", " + row.getString(1) + "]";
  }

  /** A checkpointed source of ids 0..count-1; replays exactly from its restored position. */
  public static DataGeneratorSource<RowData> source(long count, RateLimiterStrategy rateLimit) {
    return new DataGeneratorSource<>(
        (GeneratorFunction<Long, RowData>) TestRows::row, count, rateLimit, TYPE_INFO);
  }

  public static DataGeneratorSource<RowData> source(long count) {
    return source(count, RateLimiterStrategy.noOp());
  }
}
