package dev.flinklance.access;

import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.TestFragments;
import java.nio.file.Path;
import java.util.Map;

/** A Lance table on local disk, of {@link TestFragments#SCHEMA}, and the versions tests add. */
record LocalTable(String uri, TableRef ref) {

  /** A table at {@code dir/t}: version 1 empty, version 2 adding rows of {@code ids}. */
  static LocalTable create(Path dir, long... ids) {
    String uri = dir.resolve("t").toString();
    TestFragments.createTable(uri);
    LocalTable table = new LocalTable(uri, TableRef.at(uri, Map.of()));
    table.append(ids);
    return table;
  }

  /** One version more, adding rows of {@code ids}. */
  void append(long... ids) {
    LanceTestTables.appendFragments(uri, TestFragments.write(uri, ids));
  }

  void tag(String tag, long version) {
    try (OpenTable open = OpenTable.latest(ref)) {
      open.dataset().tags().create(tag, version);
    }
  }
}
