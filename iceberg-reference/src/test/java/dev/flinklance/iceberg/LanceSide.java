package dev.flinklance.iceberg;

import dev.flinklance.sink.dynamic.DynamicLanceSink;
import dev.flinklance.sink.dynamic.DynamicRecord;
import dev.flinklance.testing.LanceTestTables;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.lance.Dataset;
import org.lance.Version;

/** {@link DynamicLanceSink} with its defaults; tables read back with plain lance-core. */
final class LanceSide implements DynamicSinkUnderTest {
  private final Path warehouse;

  LanceSide(Path warehouse) {
    this.warehouse = warehouse;
  }

  @Override
  public String name() {
    return "DynamicLanceSink";
  }

  @Override
  public Path warehouse() {
    return warehouse;
  }

  @Override
  public void sink(DataStream<Long> numbers, Records records) {
    numbers
        .map(new ToLanceRecord(records))
        .name("Lance records")
        .setParallelism(1) // chained to the source: a key's changes stay in order
        .sinkTo(DynamicLanceSink.builder().warehouse(warehouse.toString()).build())
        .name(name());
  }

  @Override
  public Map<Long, List<Object>> rows(String table) {
    boolean noted = columns(table).contains("note");
    TableRows rows = new TableRows(table);
    for (List<Object> row :
        LanceTestTables.readColumns(
            uri(table), noted ? Workload.COLUMNS : Workload.COLUMNS.subList(0, 2))) {
      rows.add(row.get(0), row.get(1), noted ? row.get(2) : null);
    }
    return rows.byId();
  }

  @Override
  public List<String> columns(String table) {
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = Dataset.open().allocator(allocator).uri(uri(table)).build()) {
      return dataset.getSchema().getFields().stream().map(Field::getName).toList();
    }
  }

  @Override
  public List<Commit> commits(String table) {
    Map<Long, Long> millis = new HashMap<>();
    // one open for all the versions' times (LanceTestTables.commitMillis opens one per version)
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = Dataset.open().allocator(allocator).uri(uri(table)).build()) {
      for (Version version : dataset.listVersions()) {
        millis.put(version.getId(), version.getDataTime().toInstant().toEpochMilli());
      }
    }
    return LanceTestTables.sinkCommits(uri(table)).stream()
        .map(commit -> new Commit(commit.checkpointId(), millis.get(commit.version())))
        .toList();
  }

  @Override
  public long versions(String table) {
    return TableRows.filesUnder(tableDirectory(table).resolve("_versions"), ".manifest");
  }

  @Override
  public Path tableDirectory(String table) {
    return warehouse.resolve(Workload.DATABASE).resolve(table + ".lance");
  }

  private String uri(String table) {
    return tableDirectory(table).toString();
  }

  private record ToLanceRecord(Records records) implements MapFunction<Long, DynamicRecord> {
    @Override
    public DynamicRecord map(Long i) {
      return records.keyed(i)
          ? DynamicRecord.change(
              Workload.DATABASE,
              records.table(i),
              records.rowType(i),
              records.row(i),
              List.of("id"))
          : DynamicRecord.append(
              Workload.DATABASE, records.table(i), records.rowType(i), records.row(i));
    }
  }
}
