package dev.flinklance.source;

import dev.flinklance.testing.TestFiles;
import dev.flinklance.testing.TestTables;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.connector.testframe.external.ExternalSystemSplitDataWriter;
import org.apache.flink.connector.testframe.external.source.DataStreamSourceExternalContext;
import org.apache.flink.connector.testframe.external.source.TestingSourceSettings;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.RowType;

/**
 * Flink's connector test framework view of one Lance table: each split writer's batch is one Lance
 * append of one fragment (one split of the source), read back by a bounded or a streaming {@link
 * LanceSource}. Records are {@link org.apache.flink.table.data.binary.BinaryRowData}, as the
 * suite's collect sink deserializes them, so the suite's equality compares the rows' bytes.
 */
final class LanceSourceExternalContext implements DataStreamSourceExternalContext<RowData> {
  private static final RowType ROW_TYPE =
      (RowType)
          DataTypes.ROW(
                  DataTypes.FIELD("id", DataTypes.BIGINT().notNull()),
                  DataTypes.FIELD("value", DataTypes.STRING().notNull()))
              .notNull()
              .getLogicalType();

  private final Path directory;
  private final String table;

  LanceSourceExternalContext() throws Exception {
    this.directory = Files.createTempDirectory("lance-source-suite");
    this.table = directory.resolve("rows").toString();
    // the suite builds the source before it writes: the schema must be there already
    TestTables.create(table, ROW_TYPE, Map.of());
  }

  @Override
  public Source<RowData, ?, ?> createSource(TestingSourceSettings sourceSettings) {
    LanceSourceBuilder builder = LanceSource.builder().path(table);
    if (sourceSettings.getBoundedness() == Boundedness.CONTINUOUS_UNBOUNDED) {
      builder.streaming().discoveryInterval(Duration.ofMillis(200));
    }
    return builder.build();
  }

  @Override
  public ExternalSystemSplitDataWriter<RowData> createSourceSplitDataWriter(
      TestingSourceSettings sourceSettings) {
    return new ExternalSystemSplitDataWriter<>() {
      @Override
      public void writeRecords(List<RowData> records) {
        TestTables.append(table, ROW_TYPE, records, records.size());
      }

      @Override
      public void close() {}
    };
  }

  @Override
  public List<RowData> generateTestData(
      TestingSourceSettings sourceSettings, int splitIndex, long seed) {
    Random random = new Random(seed);
    RowDataSerializer serializer = new RowDataSerializer(ROW_TYPE);
    int count = 100 + random.nextInt(200);
    List<RowData> rows = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      GenericRowData row =
          GenericRowData.of(
              random.nextLong(), StringData.fromString(splitIndex + "-" + i + "-" + seed));
      rows.add(serializer.toBinaryRow(row).copy());
    }
    return rows;
  }

  @Override
  public TypeInformation<RowData> getProducedType() {
    return InternalTypeInfo.of(ROW_TYPE);
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
}
