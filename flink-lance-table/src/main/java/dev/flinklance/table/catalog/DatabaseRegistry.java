package dev.flinklance.table.catalog;

import dev.flinklance.access.OpenTable;
import dev.flinklance.access.TableRef;
import dev.flinklance.arrow.ArrowSchemaConverter;
import dev.flinklance.arrow.read.ArrowColumnarBatch;
import dev.flinklance.arrow.write.ArrowBatchWriter;
import dev.flinklance.errors.LanceCalls;
import dev.flinklance.filter.LanceSqlText;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.catalog.CatalogDatabase;
import org.apache.flink.table.catalog.CatalogDatabaseImpl;
import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.GenericMapData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.MapData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.RowType;
import org.lance.CommitBuilder;
import org.lance.Dataset;
import org.lance.Transaction;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.ScanOptions;
import org.lance.operation.Append;

/**
 * The catalog's databases, one row each in a Lance table at the warehouse root. Object stores have
 * no directories to list or to keep while empty, so the list lives in a table; appends and deletes
 * are safe against concurrent sessions, which Lance's table config is not (two concurrent config
 * updates lose one of them, measured with lance-core 7.0.0). A database created twice at once has
 * two rows; reading takes the first, dropping removes both.
 */
final class DatabaseRegistry {
  private static final RowType ROW_TYPE =
      (RowType)
          DataTypes.ROW(
                  DataTypes.FIELD("name", DataTypes.STRING().notNull()),
                  DataTypes.FIELD("comment", DataTypes.STRING()),
                  DataTypes.FIELD(
                      "properties", DataTypes.MAP(DataTypes.STRING(), DataTypes.STRING())))
              .notNull()
              .getLogicalType();

  private final TableRef table;

  DatabaseRegistry(TableRef table) {
    this.table = table;
  }

  List<String> names() {
    return new ArrayList<>(new TreeSet<>(read(null).keySet()));
  }

  Optional<CatalogDatabase> get(String name) {
    return Optional.ofNullable(read("name = " + LanceSqlText.quote(name)).get(name));
  }

  void add(String name, CatalogDatabase database) {
    Map<StringData, StringData> properties = new HashMap<>();
    database
        .getProperties()
        .forEach((k, v) -> properties.put(StringData.fromString(k), StringData.fromString(v)));
    RowData row =
        GenericRowData.of(
            StringData.fromString(name),
            StringData.fromString(database.getComment()),
            new GenericMapData(properties));
    LanceCalls.run(
        table.uri(),
        "cannot register database '" + name + "'",
        () -> {
          try (OpenTable registry = openOrCreate();
              ArrowBatchWriter batch =
                  ArrowBatchWriter.create(
                      ROW_TYPE, registry.dataset().getSchema(), registry.allocator())) {
            Dataset dataset = registry.dataset();
            batch.write(row);
            try (Transaction append =
                    new Transaction.Builder()
                        .readVersion(dataset.version())
                        .operation(
                            Append.builder()
                                .fragments(
                                    table
                                        .writeFragment()
                                        .allocator(registry.allocator())
                                        .data(batch.seal())
                                        .dataStorageVersion(dataset.getLanceFileFormatVersion())
                                        .execute())
                                .build())
                        .build();
                Dataset ignored = new CommitBuilder(dataset).maxRetries(20).execute(append)) {
              // committed; a concurrent append is rebased, not lost
            }
          }
        });
  }

  void remove(String name) {
    LanceCalls.run(
        table.uri(),
        "cannot remove database '" + name + "'",
        () -> {
          try (OpenTable registry = OpenTable.latest(table)) {
            registry.dataset().delete("name = " + LanceSqlText.quote(name));
          }
        });
  }

  private OpenTable openOrCreate() {
    return OpenTable.latestIfExists(table)
        .or(
            () ->
                OpenTable.createIfAbsent(
                    table,
                    ArrowSchemaConverter.toArrowSchema(ROW_TYPE, Map.of()),
                    false,
                    "2.2", // MAP needs Lance file format 2.2
                    Map.of()))
        .orElseGet(() -> OpenTable.latest(table)); // created by another session meanwhile
  }

  /** The databases whose rows match {@code filter} (all when null), first row per name. */
  private Map<String, CatalogDatabase> read(String filter) {
    Map<String, CatalogDatabase> databases = new HashMap<>();
    return LanceCalls.call(
        table.uri(),
        "cannot read the list of databases",
        () -> {
          ScanOptions.Builder options = new ScanOptions.Builder().columns(ROW_TYPE.getFieldNames());
          if (filter != null) {
            options.filter(filter);
          }
          Optional<OpenTable> existing = OpenTable.latestIfExists(table);
          if (existing.isEmpty()) {
            return databases;
          }
          try (OpenTable registry = existing.get();
              LanceScanner scanner = registry.dataset().newScan(options.build());
              ArrowReader reader = scanner.scanBatches()) {
            while (reader.loadNextBatch()) {
              ArrowColumnarBatch rows =
                  ArrowColumnarBatch.of(
                      reader.getVectorSchemaRoot(), ROW_TYPE.getFieldNames(), reader);
              for (int i = 0; i < rows.rowCount(); i++) {
                RowData row = rows.row(i);
                databases.putIfAbsent(row.getString(0).toString(), toDatabase(row));
              }
            }
          }
          return databases;
        });
  }

  private static CatalogDatabase toDatabase(RowData row) {
    Map<String, String> properties = new HashMap<>();
    if (!row.isNullAt(2)) {
      MapData map = row.getMap(2);
      ArrayData keys = map.keyArray();
      ArrayData values = map.valueArray();
      for (int i = 0; i < map.size(); i++) {
        properties.put(
            keys.getString(i).toString(),
            values.isNullAt(i) ? null : values.getString(i).toString());
      }
    }
    return new CatalogDatabaseImpl(
        properties, row.isNullAt(1) ? null : row.getString(1).toString());
  }
}
