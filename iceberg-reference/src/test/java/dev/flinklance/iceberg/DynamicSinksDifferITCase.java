package dev.flinklance.iceberg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flinklance.testing.TestClusters;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.RowKind;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where the two dynamic sinks part ways on the same records: column types that change, and row
 * kinds that one sink applies and the other does not. Each case is one small job per sink; what
 * each sink does is asserted, so a change on either side shows here.
 */
class DynamicSinksDifferITCase {
  private static final RowType BIGINT_V = rowTypeWithV("BIGINT");

  @RegisterExtension
  static final MiniClusterExtension CLUSTER =
      TestClusters.create(TestClusters.SLOTS, Jobs.clusterConfig());

  @TempDir Path dir;

  /**
   * A column widened between a table's records (INT, then BIGINT): Iceberg promotes the column to
   * BIGINT in place; Lance fails the job naming the table, the column and both types (lance-core
   * 7.0.0 changes no column type in place).
   */
  @Test
  void aColumnWidened() throws Exception {
    Listed records =
        new Listed()
            .append("widened", rowTypeWithV("INT"), RowKind.INSERT, 1L, v("INT", 10))
            .append("widened", rowTypeWithV("BIGINT"), RowKind.INSERT, 2L, v("BIGINT", 20));

    assertThatThrownBy(() -> run(lance(), records))
        .hasStackTraceContaining("Column 'v' of Lance table")
        .hasStackTraceContaining("widened")
        .hasStackTraceContaining("is INT, but a record has it as BIGINT");

    IcebergSide iceberg = iceberg();
    run(iceberg, records);
    assertThat(iceberg.schema("widened").findField("v").type()).isEqualTo(Types.LongType.get());
    assertThat(iceberg.rows("widened")).isEqualTo(bothRows());
  }

  /**
   * A record narrower than its table (BIGINT, then INT): both sinks keep the column BIGINT and
   * write the narrower value widened.
   */
  @Test
  void aNarrowerRecord() throws Exception {
    Listed records =
        new Listed()
            .append("narrowed", rowTypeWithV("BIGINT"), RowKind.INSERT, 1L, v("BIGINT", 10))
            .append("narrowed", rowTypeWithV("INT"), RowKind.INSERT, 2L, v("INT", 20));
    LanceSide lance = lance();
    IcebergSide iceberg = iceberg();
    run(lance, records);
    run(iceberg, records);

    assertThat(lance.rows("narrowed")).isEqualTo(bothRows());
    assertThat(iceberg.schema("narrowed").findField("v").type()).isEqualTo(Types.LongType.get());
    assertThat(iceberg.rows("narrowed")).isEqualTo(bothRows());
  }

  private static Map<Long, List<Object>> bothRows() {
    return Map.of(1L, TableRows.values(1L, 10L, null), 2L, TableRows.values(2L, 20L, null));
  }

  /**
   * An UPDATE_BEFORE without its UPDATE_AFTER on a keyed table: Lance deletes the key's row,
   * Iceberg's upsert mode ignores UPDATE_BEFORE (it expects the UPDATE_AFTER to replace the row).
   */
  @Test
  void aLoneUpdateBefore() throws Exception {
    Listed records =
        new Listed()
            .change("keyed", BIGINT_V, RowKind.INSERT, 1L, 10L)
            .change("keyed", BIGINT_V, RowKind.INSERT, 2L, 20L)
            .change("keyed", BIGINT_V, RowKind.UPDATE_BEFORE, 1L, 10L);
    LanceSide lance = lance();
    IcebergSide iceberg = iceberg();
    run(lance, records);
    run(iceberg, records);

    assertThat(lance.rows("keyed")).isEqualTo(Map.of(2L, TableRows.values(2L, 20L, null)));
    assertThat(iceberg.rows("keyed"))
        .isEqualTo(
            Map.of(1L, TableRows.values(1L, 10L, null), 2L, TableRows.values(2L, 20L, null)));
  }

  /**
   * A DELETE into a table without a key: Lance refuses it (an appending table cannot apply a
   * retraction), Iceberg appends it as one more row.
   */
  @Test
  void aDeleteIntoAnAppendedTable() throws Exception {
    Listed records =
        new Listed()
            .append("appended", BIGINT_V, RowKind.INSERT, 1L, 10L)
            .append("appended", BIGINT_V, RowKind.DELETE, 1L, 10L);

    assertThatThrownBy(() -> run(lance(), records))
        .hasStackTraceContaining("appends rows and cannot apply")
        .hasStackTraceContaining("with row kind DELETE");

    IcebergSide iceberg = iceberg();
    run(iceberg, records);
    assertThatThrownBy(() -> iceberg.rows("appended"))
        .as("the inserted row and the deleted one, both there")
        .hasMessageContaining("id 1 twice in table appended");
  }

  private LanceSide lance() {
    return new LanceSide(dir.resolve("lance"));
  }

  private IcebergSide iceberg() {
    return new IcebergSide(dir.resolve("iceberg"));
  }

  private static void run(DynamicSinkUnderTest sink, Records records) throws Exception {
    Jobs.run(sink, records, RateLimiterStrategy.noOp(), 2, 100);
  }

  private static RowType rowTypeWithV(String type) {
    return RowType.of(
        new LogicalType[] {
          new BigIntType(false), type.equals("INT") ? new IntType() : new BigIntType()
        },
        new String[] {"id", "v"});
  }

  private static Object v(String type, int value) {
    return type.equals("INT") ? (Object) value : (Object) (long) value;
  }
}
