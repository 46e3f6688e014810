package dev.flinklance.arrow.write;

import org.apache.arrow.vector.complex.MapVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.flink.table.data.MapData;

/** MAP into an Arrow Map: a list of non-null {key, value} entry structs. */
final class MapWriter extends RepeatedWriter<MapVector> {
  private final StructVector entries;
  private final FieldWriter<?> keyWriter;
  private final FieldWriter<?> valueWriter;
  private final ValueReader keys = new ValueReader();
  private final ValueReader values = new ValueReader();

  MapWriter(MapVector vector, String path, FieldWriter<?> keyWriter, FieldWriter<?> valueWriter) {
    super(vector, path);
    this.entries = (StructVector) vector.getDataVector();
    this.keyWriter = keyWriter;
    this.valueWriter = valueWriter;
  }

  @Override
  void writeValue(ValueReader source, int pos, int index) {
    MapData map = source.getMap(pos);
    int size = map.size();
    int start = vector.startNewValue(index);
    keys.pointTo(map.keyArray());
    values.pointTo(map.valueArray());
    for (int i = 0; i < size; i++) {
      entries.setIndexDefined(start + i);
      keyWriter.write(keys, i, start + i);
      valueWriter.write(values, i, start + i);
    }
    vector.endValue(index, size);
  }

  @Override
  void forgetRoom() {
    keyWriter.forgetRoom();
    valueWriter.forgetRoom();
  }
}
