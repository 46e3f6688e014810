package dev.flinklance.arrow.read;

import java.util.Optional;
import org.apache.flink.annotation.Internal;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeFamily;
import org.apache.flink.table.types.logical.LogicalTypeRoot;
import org.apache.flink.table.types.logical.MapType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.utils.LogicalTypeCasts;

/**
 * Whether a table column can be read as the type a DDL declares for it: the declaration the sink
 * wrote the table with must read it back. Flink holds strings, binaries, timestamps and times the
 * same way whatever their length or precision, so CHAR(n) reads a Lance string and TIMESTAMP(0) a
 * millisecond timestamp; a NOT NULL declaration needs a NOT NULL column.
 */
@Internal
public final class ReadableAs {

  private ReadableAs() {}

  /**
   * The first declared column the table's column of the same position cannot be read as, named with
   * both types: {@code column 'x' is declared as BIGINT, but the table holds STRING}.
   */
  public static Optional<String> mismatch(RowType declared, RowType table) {
    for (int i = 0; i < declared.getFieldCount(); i++) {
      if (!readableAs(table.getTypeAt(i), declared.getTypeAt(i))) {
        return Optional.of(
            String.format(
                "column '%s' is declared as %s, but the table holds %s",
                declared.getFieldNames().get(i),
                declared.getTypeAt(i).asSummaryString(),
                table.getTypeAt(i).asSummaryString()));
      }
    }
    return Optional.empty();
  }

  public static boolean readableAs(LogicalType table, LogicalType declared) {
    if (!declared.isNullable() && table.isNullable()) {
      return false;
    }
    LogicalTypeRoot root = declared.getTypeRoot();
    if (sameFamily(table, declared, LogicalTypeFamily.CHARACTER_STRING)
        || sameFamily(table, declared, LogicalTypeFamily.BINARY_STRING)) {
      return true;
    }
    if (root == LogicalTypeRoot.TIMESTAMP_WITHOUT_TIME_ZONE
        || root == LogicalTypeRoot.TIMESTAMP_WITH_LOCAL_TIME_ZONE
        || root == LogicalTypeRoot.TIME_WITHOUT_TIME_ZONE) {
      return table.getTypeRoot() == root;
    }
    if (root == LogicalTypeRoot.ARRAY && table instanceof ArrayType tableArray) {
      return readableAs(tableArray.getElementType(), ((ArrayType) declared).getElementType());
    }
    if (root == LogicalTypeRoot.MAP && table instanceof MapType tableMap) {
      MapType declaredMap = (MapType) declared;
      return readableAs(tableMap.getKeyType(), declaredMap.getKeyType())
          && readableAs(tableMap.getValueType(), declaredMap.getValueType());
    }
    if (root == LogicalTypeRoot.ROW && table instanceof RowType tableRow) {
      RowType declaredRow = (RowType) declared;
      if (!tableRow.getFieldNames().equals(declaredRow.getFieldNames())) {
        return false;
      }
      for (int i = 0; i < declaredRow.getFieldCount(); i++) {
        if (!readableAs(tableRow.getTypeAt(i), declaredRow.getTypeAt(i))) {
          return false;
        }
      }
      return true;
    }
    return LogicalTypeCasts.supportsAvoidingCast(table.copy(true), declared.copy(true));
  }

  private static boolean sameFamily(
      LogicalType table, LogicalType declared, LogicalTypeFamily family) {
    return table.is(family) && declared.is(family);
  }
}
