package dev.flinklance.source.testing;

import dev.flinklance.access.TableRef;
import dev.flinklance.access.VersionMark;
import dev.flinklance.source.LanceSource;
import dev.flinklance.source.LanceSourceBuilder;
import dev.flinklance.source.split.LanceSplit;
import dev.flinklance.source.split.SplitKind;
import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.TestRows;
import dev.flinklance.testing.TestTables;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.lance.Dataset;

/**
 * A source test's table of {@link TestRows} ({@code id BIGINT, name STRING}, {@code name-<id>}
 * unless changed), written through Lance one version per call, and what the source makes of its
 * versions: marks, splits, and rows as the tests format them ({@code +I[0, name-0]}).
 */
public final class SourceTable {
  private final String uri;

  private SourceTable(String uri) {
    this.uri = uri;
  }

  /** The table at {@code uri}. */
  public static SourceTable at(String uri) {
    return new SourceTable(uri);
  }

  /** A new empty table (version 1). */
  public static SourceTable create(Path path, boolean stableRowIds) {
    SourceTable table = at(path.toString());
    TestTables.create(table.uri, TestRows.ROW_TYPE, Map.of(), stableRowIds);
    return table;
  }

  public String uri() {
    return uri;
  }

  /** A source of this table, to be built on. */
  public LanceSourceBuilder source() {
    return LanceSource.builder().path(uri);
  }

  /** Appends ids [from, to) as one version, in fragments of {@code rowsPerFragment}. */
  public void append(long from, long to, int rowsPerFragment) {
    TestTables.append(
        uri,
        TestRows.ROW_TYPE,
        LongStream.range(from, to).mapToObj(TestRows::row).toList(),
        rowsPerFragment);
  }

  /** Lance's merge-insert by id (one version): new names for ids there, new rows for others. */
  public void upsert(Map<Long, String> names) {
    List<RowData> rows =
        names.entrySet().stream()
            .map(e -> (RowData) GenericRowData.of(e.getKey(), StringData.fromString(e.getValue())))
            .toList();
    TestTables.upsert(uri, TestRows.ROW_TYPE, "id", rows);
  }

  /** Lance's delete (one version). */
  public void delete(String predicate) {
    TestTables.delete(uri, predicate);
  }

  /** The mark a read keeps of {@code version}: its number and commit instant. */
  public VersionMark mark(long version) {
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = new TableRef(uri, Map.of()).open(allocator, version)) {
      return VersionMark.of(dataset);
    }
  }

  /** The split of the rows of one fragment that {@code version} changed, none read yet. */
  public LanceSplit split(SplitKind kind, int fragment, long version) {
    return LanceSplit.of(kind, fragment, version, LanceTestTables.commitMillis(uri, version));
  }

  /** The split of a fragment {@code version} added. */
  public LanceSplit added(int fragment, long version) {
    return split(SplitKind.ADDED, fragment, version);
  }

  /** The rows of ids [from, to) as a read emits them: {@code kind[id, name-id]}. */
  public static List<String> rows(String kind, long from, long to) {
    return LongStream.range(from, to)
        .mapToObj(id -> kind + "[" + id + ", name-" + id + "]")
        .toList();
  }
}
