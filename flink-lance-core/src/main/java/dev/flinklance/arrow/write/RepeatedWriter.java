package dev.flinklance.arrow.write;

import org.apache.arrow.vector.complex.ListVector;

/** What ARRAY and MAP writers share: both are Arrow lists (a map is a list of entries). */
abstract class RepeatedWriter<V extends ListVector> extends FieldWriter<V> {

  RepeatedWriter(V vector, String path) {
    super(vector, path);
  }

  @Override
  void setNull(int index) {
    vector.setNull(index);
  }

  /** An empty list (or map). */
  @Override
  void setPlaceholder(int index) {
    vector.startNewValue(index);
    vector.endValue(index, 0);
  }
}
