package dev.flinklance.sink.it;

import dev.flinklance.sink.LanceSink;
import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.TestFiles;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.connector.testframe.external.ExternalSystemDataReader;
import org.apache.flink.connector.testframe.external.sink.DataStreamSinkV2ExternalContext;
import org.apache.flink.connector.testframe.external.sink.TestingSinkSettings;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.RowType;

/**
 * Flink's connector test framework view of one Lance table: the sink writes plain strings into it
 * through {@link LanceSink#forType}, the reader reads them back with Lance.
 */
final class LanceExternalContext implements DataStreamSinkV2ExternalContext<String> {
  private static final RowType ROW_TYPE =
      (RowType)
          DataTypes.ROW(DataTypes.FIELD("value", DataTypes.STRING().notNull()))
              .notNull()
              .getLogicalType();

  private final Path directory;
  private final String table;

  LanceExternalContext() throws Exception {
    this.directory = Files.createTempDirectory("lance-sink-suite");
    this.table = directory.resolve("strings").toString();
  }

  @Override
  public Sink<String> createSink(TestingSinkSettings sinkSettings) {
    return LanceSink.forType(
            ROW_TYPE, (String value) -> GenericRowData.of(StringData.fromString(value)))
        .path(table)
        .build();
  }

  @Override
  public ExternalSystemDataReader<String> createSinkDataReader(TestingSinkSettings sinkSettings) {
    return new NewRowsReader(table);
  }

  @Override
  public List<String> generateTestData(TestingSinkSettings sinkSettings, long seed) {
    Random random = new Random(seed);
    int count = 100 + random.nextInt(200);
    List<String> values = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      values.add(i + "-" + Long.toHexString(random.nextLong()));
    }
    return values;
  }

  @Override
  public TypeInformation<String> getProducedType() {
    return Types.STRING;
  }

  @Override
  public List<URL> getConnectorJarPaths() {
    return List.of();
  }

  @Override
  public void close() throws Exception {
    TestFiles.deleteRecursively(directory);
  }

  @Override
  public String toString() {
    return "Lance table " + table;
  }

  /** Each poll returns the rows committed since the previous poll (the table is append-only). */
  private static final class NewRowsReader implements ExternalSystemDataReader<String> {
    private final String table;
    private final Map<String, Integer> returned = new HashMap<>();

    NewRowsReader(String table) {
      this.table = table;
    }

    @Override
    public List<String> poll(java.time.Duration timeout) {
      List<String> fresh = new ArrayList<>();
      if (!LanceTestTables.hasVersion(table)) {
        return fresh;
      }
      Map<String, Integer> seen = new HashMap<>();
      for (List<Object> row : LanceTestTables.readColumns(table, List.of("value"))) {
        String value = row.get(0).toString();
        int occurrence = seen.merge(value, 1, Integer::sum);
        if (occurrence > returned.getOrDefault(value, 0)) {
          fresh.add(value);
        }
      }
      fresh.forEach(value -> returned.merge(value, 1, Integer::sum));
      return fresh;
    }

    @Override
    public void close() {}
  }
}
