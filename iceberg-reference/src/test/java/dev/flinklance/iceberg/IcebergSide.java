package dev.flinklance.iceberg;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.util.Collector;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.DistributionMode;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotRef;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.flink.CatalogLoader;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.flink.sink.dynamic.DynamicIcebergSink;
import org.apache.iceberg.flink.sink.dynamic.DynamicRecord;
import org.apache.iceberg.flink.sink.dynamic.DynamicRecordGenerator;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;

/**
 * Iceberg's {@link DynamicIcebergSink} with its defaults, into a {@code HadoopCatalog} on the local
 * file system; tables read back with Iceberg's generic reader.
 *
 * <p>Why this catalog: Iceberg's Flink classes and its Parquet writer need Hadoop's {@code
 * Configuration} and {@code FileSystem} whatever the catalog, so Hadoop's client jars are here
 * anyway, and the Hadoop catalog needs nothing more (no database, no server): it commits by
 * renaming the next metadata file under a lock that Iceberg holds in the JVM, which is sound when
 * every committer runs in one JVM, as in a MiniCluster (Iceberg's own sink tests use it). The file
 * system is Hadoop's raw local one: the default local file system writes a {@code .crc} file next
 * to each file, which Lance does not, and which an object store does not either.
 */
final class IcebergSide implements DynamicSinkUnderTest {
  private final Path warehouse;
  private final CatalogLoader catalog;

  IcebergSide(Path warehouse) {
    this.warehouse = warehouse;
    Configuration hadoop = new Configuration();
    hadoop.set("fs.file.impl", RawLocalFileSystem.class.getName());
    // Hadoop caches a file system by scheme, whatever its configuration
    hadoop.setBoolean("fs.file.impl.disable.cache", true);
    this.catalog =
        CatalogLoader.hadoop(
            "iceberg", hadoop, Map.of(CatalogProperties.WAREHOUSE_LOCATION, warehouse.toString()));
  }

  @Override
  public String name() {
    return "DynamicIcebergSink";
  }

  @Override
  public Path warehouse() {
    return warehouse;
  }

  @Override
  public void sink(DataStream<Long> numbers, Records records) {
    DynamicIcebergSink.forInput(numbers)
        .generator(new ToIcebergRecord(records))
        .catalogLoader(catalog)
        .uidPrefix("iceberg")
        .append();
  }

  @Override
  public Map<Long, List<Object>> rows(String table) {
    Table loaded = load(table);
    boolean noted = loaded.schema().findField("note") != null;
    TableRows rows = new TableRows(table);
    try (CloseableIterable<Record> records = IcebergGenerics.read(loaded).build()) {
      for (Record record : records) {
        rows.add(
            record.getField("id"), record.getField("v"), noted ? record.getField("note") : null);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return rows.byId();
  }

  @Override
  public List<String> columns(String table) {
    return load(table).schema().columns().stream().map(Types.NestedField::name).toList();
  }

  /** The table's schema as Iceberg has it. */
  Schema schema(String table) {
    return load(table).schema();
  }

  @Override
  public List<Commit> commits(String table) {
    List<Commit> commits = new ArrayList<>();
    for (Snapshot snapshot : load(table).snapshots()) {
      // the one snapshot without: the empty one that creates the table's main branch
      String checkpoint = snapshot.summary().get("flink.max-committed-checkpoint-id");
      if (checkpoint != null) {
        commits.add(new Commit(Long.parseLong(checkpoint), snapshot.timestampMillis()));
      }
    }
    return commits;
  }

  @Override
  public long versions(String table) {
    return TableRows.filesUnder(tableDirectory(table).resolve("metadata"), ".metadata.json");
  }

  @Override
  public Path tableDirectory(String table) {
    return warehouse.resolve(Workload.DATABASE).resolve(table);
  }

  private Table load(String table) {
    return catalog.loadCatalog().loadTable(TableIdentifier.of(Workload.DATABASE, table));
  }

  /**
   * A record as Iceberg takes it: the same row, the schema converted, unpartitioned. Appended rows
   * go to one writer per table, spread over the writers by table (as DynamicLanceSink does by
   * default); changes upsert by {@code id}, spread over every writer by key. Each schema is
   * converted once, and the same Schema object goes with every record of that schema, as a
   * generator should (Iceberg caches what it compared by the record's schema).
   */
  private static final class ToIcebergRecord implements DynamicRecordGenerator<Long> {
    private static final long serialVersionUID = 1L;

    private final Records records;
    private transient Map<RowType, Schema> schemas;

    ToIcebergRecord(Records records) {
      this.records = records;
    }

    @Override
    public void generate(Long i, Collector<DynamicRecord> out) {
      boolean keyed = records.keyed(i);
      DynamicRecord record =
          new DynamicRecord(
              TableIdentifier.of(Workload.DATABASE, records.table(i)),
              SnapshotRef.MAIN_BRANCH,
              schema(records.rowType(i)),
              records.row(i),
              PartitionSpec.unpartitioned(),
              DistributionMode.NONE,
              keyed ? Integer.MAX_VALUE : 1);
      if (keyed) {
        record.setUpsertMode(true);
        record.setEqualityFields(Set.of("id"));
      }
      out.collect(record);
    }

    private Schema schema(RowType rowType) {
      if (schemas == null) {
        schemas = new HashMap<>();
      }
      return schemas.computeIfAbsent(rowType, ToIcebergRecord::convert);
    }

    /**
     * The row type as an Iceberg schema whose field ids count from 1 in column order, as Iceberg
     * numbers a table's columns. Not {@code FlinkSchemaUtil.convert}: its ids count from 0, and
     * with those ids the upserted tables' writers failed at the first checkpoint (the equality
     * delete file's schema came out empty: Iceberg selected the key's id of the table, 1, from the
     * record's schema).
     */
    private static Schema convert(RowType rowType) {
      List<Types.NestedField> fields = new ArrayList<>();
      for (int i = 0; i < rowType.getFieldCount(); i++) {
        fields.add(
            Types.NestedField.of(
                i + 1,
                rowType.getTypeAt(i).isNullable(),
                rowType.getFieldNames().get(i),
                FlinkSchemaUtil.convert(rowType.getTypeAt(i))));
      }
      return new Schema(fields);
    }
  }
}
