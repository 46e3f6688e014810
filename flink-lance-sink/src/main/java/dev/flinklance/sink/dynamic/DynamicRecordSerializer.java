package dev.flinklance.sink.dynamic;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.RowType;

/**
 * How {@link DynamicRecord}s travel between subtasks: names, the schema as text, key, vector
 * columns, then the row in Flink's binary row format for that schema. Schemas and their row
 * serializers are cached by text: a stream carries few of them.
 */
@Internal
public final class DynamicRecordSerializer extends TypeSerializer<DynamicRecord> {
  private static final long serialVersionUID = 1L;

  /** More schemas than this in one stream: the caches start over rather than grow. */
  private static final int MAX_CACHED_SCHEMAS = 1024;

  private transient Map<RowType, String> texts;
  private transient Map<String, RowType> types;
  private transient Map<RowType, RowDataSerializer> rows;

  private Map<RowType, String> texts() {
    if (texts == null) {
      texts = new HashMap<>();
      types = new HashMap<>();
      rows = new HashMap<>();
    }
    return texts;
  }

  private String textOf(RowType type) {
    Map<RowType, String> cache = texts();
    String text = cache.get(type);
    if (text == null) {
      if (cache.size() >= MAX_CACHED_SCHEMAS) {
        cache.clear();
      }
      text = RowTypes.text(type);
      cache.put(type, text);
    }
    return text;
  }

  private RowType typeOf(String text) {
    texts();
    if (types.size() >= MAX_CACHED_SCHEMAS) {
      types.clear();
    }
    return types.computeIfAbsent(text, RowTypes::parse);
  }

  private RowDataSerializer rowsOf(RowType type) {
    texts();
    if (rows.size() >= MAX_CACHED_SCHEMAS) {
      rows.clear();
    }
    return rows.computeIfAbsent(type, RowDataSerializer::new);
  }

  @Override
  public boolean isImmutableType() {
    return false;
  }

  @Override
  public TypeSerializer<DynamicRecord> duplicate() {
    return new DynamicRecordSerializer();
  }

  @Override
  public DynamicRecord createInstance() {
    return null;
  }

  @Override
  public DynamicRecord copy(DynamicRecord from) {
    return new DynamicRecord(
        from.database(),
        from.table(),
        from.rowType(),
        rowsOf(from.rowType()).copy(from.row()),
        from.primaryKey(),
        from.vectorColumns());
  }

  @Override
  public DynamicRecord copy(DynamicRecord from, DynamicRecord reuse) {
    return copy(from);
  }

  @Override
  public int getLength() {
    return -1;
  }

  @Override
  public void serialize(DynamicRecord record, DataOutputView target) throws IOException {
    target.writeUTF(record.database());
    target.writeUTF(record.table());
    writeLongString(textOf(record.rowType()), target);
    target.writeInt(record.primaryKey().size());
    for (String column : record.primaryKey()) {
      target.writeUTF(column);
    }
    target.writeInt(record.vectorColumns().size());
    for (Map.Entry<String, Integer> vector : record.vectorColumns().entrySet()) {
      target.writeUTF(vector.getKey());
      target.writeInt(vector.getValue());
    }
    rowsOf(record.rowType()).serialize(record.row(), target);
  }

  @Override
  public DynamicRecord deserialize(DataInputView source) throws IOException {
    String database = source.readUTF();
    String table = source.readUTF();
    RowType rowType = typeOf(readLongString(source));
    int keyColumns = source.readInt();
    List<String> key = new ArrayList<>(keyColumns);
    for (int i = 0; i < keyColumns; i++) {
      key.add(source.readUTF());
    }
    int vectorColumns = source.readInt();
    Map<String, Integer> vectors = new LinkedHashMap<>();
    for (int i = 0; i < vectorColumns; i++) {
      vectors.put(source.readUTF(), source.readInt());
    }
    RowData row = rowsOf(rowType).deserialize(source);
    return new DynamicRecord(database, table, rowType, row, key, vectors);
  }

  @Override
  public DynamicRecord deserialize(DynamicRecord reuse, DataInputView source) throws IOException {
    return deserialize(source);
  }

  @Override
  public void copy(DataInputView source, DataOutputView target) throws IOException {
    serialize(deserialize(source), target);
  }

  /** A schema's text can pass writeUTF's 64 KB (hundreds of columns with comments). */
  private static void writeLongString(String text, DataOutputView target) throws IOException {
    byte[] bytes = text.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    target.writeInt(bytes.length);
    target.write(bytes);
  }

  private static String readLongString(DataInputView source) throws IOException {
    byte[] bytes = new byte[source.readInt()];
    source.readFully(bytes);
    return new String(bytes, java.nio.charset.StandardCharsets.UTF_8);
  }

  @Override
  public boolean equals(Object obj) {
    return obj instanceof DynamicRecordSerializer;
  }

  @Override
  public int hashCode() {
    return DynamicRecordSerializer.class.hashCode();
  }

  @Override
  public TypeSerializerSnapshot<DynamicRecord> snapshotConfiguration() {
    return new Snapshot();
  }

  /** The serializer has no configuration: any snapshot restores it. */
  public static final class Snapshot extends SimpleTypeSerializerSnapshot<DynamicRecord> {
    public Snapshot() {
      super(DynamicRecordSerializer::new);
    }
  }
}
