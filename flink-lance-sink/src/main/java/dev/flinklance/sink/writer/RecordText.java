package dev.flinklance.sink.writer;

import java.time.LocalDate;
import java.time.LocalTime;
import java.util.HexFormat;
import java.util.List;
import java.util.function.IntConsumer;
import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.MapData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.MapType;
import org.apache.flink.table.types.logical.MultisetType;
import org.apache.flink.table.types.logical.RowType;

/**
 * A record's values as text for an error message ({@code +I[1, [1.0, 2.0], {a=1}, x'0a0b']}), read
 * with the row's type: Flink's own {@code toString} of a row shows an array or a map as {@code
 * GenericArrayData@9da09eb}. At most {@link #MAX_CHARS} characters, whatever the values (100 KB
 * strings, large binaries, long arrays): a value that does not fit is cut, saying how long it was.
 */
final class RecordText {
  static final int MAX_CHARS = 300;

  private final RowType rowType;

  RecordText(RowType rowType) {
    this.rowType = rowType;
  }

  String of(RowData row) {
    Text text = new Text();
    text.append(row.getRowKind().shortString());
    try {
      appendRow(text, row, rowType, '[', ']');
    } catch (RuntimeException e) {
      // a row whose values are not of its type's internal classes: the error is about that row
      return String.valueOf(row);
    }
    return text.toString();
  }

  private static void appendRow(Text text, RowData row, RowType type, char open, char close) {
    List<LogicalType> fields = type.getChildren();
    appendElements(
        text,
        open,
        Math.min(fields.size(), row.getArity()),
        "fields",
        i ->
            appendValue(
                text,
                RowData.createFieldGetter(fields.get(i), i).getFieldOrNull(row),
                fields.get(i)),
        close);
  }

  /** {@code size} elements, separated by commas, as many as the room allows. */
  private static void appendElements(
      Text text, char open, int size, String unit, IntConsumer element, char close) {
    text.append(open);
    int i = 0;
    for (; i < size && text.hasRoom(); i++) {
      if (i > 0) {
        text.append(", ");
      }
      element.accept(i);
    }
    if (i < size) {
      text.append("... (" + size + " " + unit + ")");
    }
    text.append(close);
  }

  private static void appendValue(Text text, Object value, LogicalType type) {
    if (value == null) {
      text.append("null");
      return;
    }
    switch (type.getTypeRoot()) {
      case ROW:
        appendRow(text, (RowData) value, (RowType) type, '(', ')');
        break;
      case ARRAY:
        appendArray(text, (ArrayData) value, ((ArrayType) type).getElementType());
        break;
      case MAP:
        appendMap(
            text, (MapData) value, ((MapType) type).getKeyType(), ((MapType) type).getValueType());
        break;
      case MULTISET:
        appendMap(text, (MapData) value, ((MultisetType) type).getElementType(), new IntType());
        break;
      case BINARY:
      case VARBINARY:
        appendBinary(text, (byte[]) value);
        break;
      case DATE:
        text.appendCut(LocalDate.ofEpochDay((Integer) value).toString());
        break;
      case TIME_WITHOUT_TIME_ZONE:
        text.appendCut(LocalTime.ofNanoOfDay((Integer) value * 1_000_000L).toString());
        break;
      default:
        text.appendCut(value.toString());
    }
  }

  private static void appendArray(Text text, ArrayData array, LogicalType elementType) {
    ArrayData.ElementGetter element = ArrayData.createElementGetter(elementType);
    appendElements(
        text,
        '[',
        array.size(),
        "elements",
        i -> appendValue(text, element.getElementOrNull(array, i), elementType),
        ']');
  }

  private static void appendMap(
      Text text, MapData map, LogicalType keyType, LogicalType valueType) {
    ArrayData.ElementGetter key = ArrayData.createElementGetter(keyType);
    ArrayData.ElementGetter value = ArrayData.createElementGetter(valueType);
    appendElements(
        text,
        '{',
        map.size(),
        "entries",
        i -> {
          appendValue(text, key.getElementOrNull(map.keyArray(), i), keyType);
          text.append('=');
          appendValue(text, value.getElementOrNull(map.valueArray(), i), valueType);
        },
        '}');
  }

  private static void appendBinary(Text text, byte[] bytes) {
    int shown = Math.min(bytes.length, Math.max(0, text.room() / 2));
    text.append("x'").append(HexFormat.of().formatHex(bytes, 0, shown));
    if (shown < bytes.length) {
      text.append("... (" + bytes.length + " bytes)");
    }
    text.append('\'');
  }

  /** Text with a budget: values are cut once it is spent; brackets still close. */
  private static final class Text {
    private final StringBuilder out = new StringBuilder();

    boolean hasRoom() {
      return out.length() < MAX_CHARS;
    }

    int room() {
      return Math.max(0, MAX_CHARS - out.length());
    }

    Text append(Object part) {
      out.append(part);
      return this;
    }

    /** A value, cut to the room left. */
    void appendCut(String value) {
      if (value.length() <= room()) {
        out.append(value);
      } else {
        out.append(value, 0, room()).append("... (").append(value.length()).append(" chars)");
      }
    }

    @Override
    public String toString() {
      return out.toString();
    }
  }
}
