package dev.flinklance.sink.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flinklance.access.LanceDatasetOptions;
import dev.flinklance.errors.PermanentDatasetException;
import dev.flinklance.sink.LanceSink;
import dev.flinklance.sink.LanceSinkBuilder;
import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.TestClusters;
import dev.flinklance.testing.TestFragments;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.ExceptionUtils;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bad input fails the job with a message that names the column (or path), and the table is left
 * exactly as it was: same version, no rows.
 */
@Timeout(120) // a permanent error that Flink restarted would loop until this fails the test
class BadInputITCase {
  @RegisterExtension static final MiniClusterExtension CLUSTER = TestClusters.withoutRestarts();

  @TempDir Path dir;
  private String table;

  /** An existing table: id BIGINT NOT NULL, name STRING, vec FixedSizeList(4) of float. */
  @BeforeEach
  void createTable() {
    table = dir.resolve("existing").toString();
    TestFragments.createTable(
        table,
        new Schema(
            List.of(
                Field.notNullable("id", new ArrowType.Int(64, true)),
                Field.nullable("name", ArrowType.Utf8.INSTANCE),
                new Field(
                    "vec",
                    FieldType.nullable(new ArrowType.FixedSizeList(4)),
                    List.of(
                        Field.nullable(
                            "item",
                            new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)))))));
  }

  /** The stream type that matches the table. */
  private static final RowType MATCHING =
      rowType(
          DataTypes.FIELD("id", DataTypes.BIGINT().notNull()),
          DataTypes.FIELD("name", DataTypes.STRING()),
          vec());

  @Test
  void missingNotNullColumn() {
    RowType type = rowType(DataTypes.FIELD("name", DataTypes.STRING()), vec());
    assertFailsLeavingTableUnchanged(
        type,
        row(StringData.fromString("a"), floats(1, 2, 3, 4)),
        "Column 'id' of the table is NOT NULL and missing from the stream");
  }

  @Test
  void extraColumnWithoutSchemaEvolution() {
    RowType type =
        rowType(
            DataTypes.FIELD("id", DataTypes.BIGINT().notNull()),
            DataTypes.FIELD("name", DataTypes.STRING()),
            vec(),
            DataTypes.FIELD("extra", DataTypes.INT()));
    assertFailsLeavingTableUnchanged(
        type,
        row(1L, StringData.fromString("a"), floats(1, 2, 3, 4), 5),
        "the stream has columns the table lacks: [extra Int(32, true)]; set"
            + " 'sink.schema-evolution' = 'add-columns'");
  }

  @Test
  void incompatibleType() {
    RowType type =
        rowType(
            DataTypes.FIELD("id", DataTypes.BIGINT().notNull()),
            DataTypes.FIELD("name", DataTypes.INT()),
            vec());
    assertFailsLeavingTableUnchanged(
        type,
        row(1L, 5, floats(1, 2, 3, 4)),
        "Column 'name' has stream type INT, which cannot be written to table type Utf8");
  }

  @Test
  void nullableStreamColumnIntoNotNullTableColumn() {
    RowType type =
        rowType(
            DataTypes.FIELD("id", DataTypes.BIGINT()),
            DataTypes.FIELD("name", DataTypes.STRING()),
            vec());
    assertFailsLeavingTableUnchanged(
        type,
        row(1L, StringData.fromString("a"), floats(1, 2, 3, 4)),
        "Column 'id' is nullable in the stream (BIGINT) but NOT NULL in the table");
  }

  @Test
  void nullValueIntoNotNullColumn() {
    assertValueFailsLeavingTableUnchanged(
        row(null, StringData.fromString("a"), floats(1, 2, 3, 4)),
        "record #2 of subtask 0 of 1: Column 'id': null value for a NOT NULL column");
  }

  @Test
  void wrongVectorDimension() {
    assertValueFailsLeavingTableUnchanged(
        row(7L, StringData.fromString("a"), floats(1, 2, 3)),
        "record #2 of subtask 0 of 1: Column 'vec': expected a vector of dimension 4, got 3");
  }

  @Test
  void retractionsAreRejected() {
    RowData delete = row(9L, StringData.fromString("gone"), floats(1, 2, 3, 4));
    delete.setRowKind(org.apache.flink.types.RowKind.DELETE);
    assertValueFailsLeavingTableUnchanged(
        delete, "appends rows and cannot apply record #2 of subtask 0 of 1 with row kind DELETE");
  }

  @Test
  void aNullPrimaryKeyFailsTheJob() {
    RowType nullableKey =
        rowType(
            DataTypes.FIELD("id", DataTypes.BIGINT()),
            DataTypes.FIELD("name", DataTypes.STRING()),
            vec());
    RowData good = row(0L, StringData.fromString("ok"), floats(0, 0, 0, 0));
    RowData nullKey = row(null, StringData.fromString("a"), floats(1, 2, 3, 4));
    assertThatThrownBy(
            () ->
                runJob(
                    LanceSink.forRowData(nullableKey).path(table).primaryKey("id"),
                    nullableKey,
                    List.of(good, nullKey),
                    PERMANENT_ONLY))
        .satisfies(
            e ->
                assertThat(ExceptionUtils.stringifyException(e))
                    .contains(
                        "cannot apply record #2 of subtask 0 of 1: its primary key column 'id' is"
                            + " NULL"));
    assertThat(LanceTestTables.latestVersion(table)).isEqualTo(1);
  }

  @Test
  void aPrimaryKeyColumnTheTableDoesNotHave() {
    RowType withCode =
        rowType(
            DataTypes.FIELD("id", DataTypes.BIGINT().notNull()),
            DataTypes.FIELD("name", DataTypes.STRING()),
            vec(),
            DataTypes.FIELD("code", DataTypes.INT()));
    assertKeyedFailsLeavingTableUnchanged(
        table,
        withCode,
        "code",
        row(1L, StringData.fromString("a"), floats(1, 2, 3, 4), 5),
        "Primary key column 'code' is not a column of Lance table '" + table + "'");
  }

  @Test
  void aPrimaryKeyOtherThanTheTablesOrNoneFails() {
    String keyed = dir.resolve("keyed").toString();
    Map<String, String> key =
        Map.of(
            "lance-schema:unenforced-primary-key", "true",
            "lance-schema:unenforced-primary-key:position", "1");
    TestFragments.createTable(
        keyed,
        new Schema(
            List.of(
                new Field(
                    "id", new FieldType(false, new ArrowType.Int(64, true), null, key), List.of()),
                Field.nullable("name", ArrowType.Utf8.INSTANCE))));
    RowType type =
        rowType(
            DataTypes.FIELD("id", DataTypes.BIGINT().notNull()),
            DataTypes.FIELD("name", DataTypes.STRING().notNull()));
    RowData record = row(1L, StringData.fromString("a"));
    assertKeyedFailsLeavingTableUnchanged(
        keyed,
        type,
        "name",
        record,
        "Lance table '"
            + keyed
            + "' has primary key (id), the sink's rows have primary key (name)");
    assertThatThrownBy(() -> runJob(keyed, Map.of(), type, List.of(record)))
        .satisfies(
            e ->
                assertThat(ExceptionUtils.stringifyException(e))
                    .contains("Lance table '" + keyed + "' has primary key (id): declare it"));
    assertThat(LanceTestTables.latestVersion(keyed)).isEqualTo(1);
  }

  /**
   * More changes in one checkpoint than the writer may hold: the job ends at once, naming the
   * option (a restart would fill the buffer again with the same changes).
   */
  @Test
  void changesOutgrowingTheWritersBufferFailTheJob() {
    String path = dir.resolve("big").toString();
    RowType type =
        rowType(
            DataTypes.FIELD("id", DataTypes.BIGINT().notNull()),
            DataTypes.FIELD("name", DataTypes.STRING()));
    List<RowData> rows = new java.util.ArrayList<>();
    String kilobyte = "x".repeat(1024);
    for (long id = 0; id < 4_000; id++) {
      rows.add(row(id, StringData.fromString(kilobyte)));
    }
    assertThatThrownBy(
            () ->
                runJob(
                    LanceSink.forRowData(type)
                        .path(path)
                        .primaryKey("id")
                        .set(
                            dev.flinklance.sink.LanceSinkOptions.SINK_UPSERT_MAX_BUFFER_SIZE,
                            org.apache.flink.configuration.MemorySize.ofMebiBytes(2)),
                    type,
                    rows,
                    PERMANENT_ONLY))
        .satisfies(
            e ->
                assertThat(ExceptionUtils.stringifyException(e))
                    .contains("the changes of subtask 0 of 1 since its last checkpoint")
                    .contains("do not fit sink.upsert.max-buffer-size = 2 mb"));
    assertThat(LanceTestTables.readLongs(path, "id"))
        .as("only checkpoints before the one that did not fit committed")
        .hasSizeLessThan(rows.size())
        .doesNotHaveDuplicates();
  }

  private static void assertKeyedFailsLeavingTableUnchanged(
      String path, RowType type, String key, RowData record, String message) {
    assertThatThrownBy(
            () ->
                runJob(
                    LanceSink.forRowData(type).path(path).primaryKey(key),
                    type,
                    List.of(record),
                    PERMANENT_ONLY))
        .satisfies(e -> assertThat(ExceptionUtils.stringifyException(e)).contains(message));
    assertThat(LanceTestTables.latestVersion(path)).isEqualTo(1);
  }

  @Test
  void timestampOutsideTheColumnsRange() throws Exception {
    String nanos = dir.resolve("nanos").toString();
    RowType type = rowType(DataTypes.FIELD("ts", DataTypes.TIMESTAMP(9)));
    RowData farFuture =
        row(org.apache.flink.table.data.TimestampData.fromEpochMillis(Long.MAX_VALUE / 1000));
    assertThatThrownBy(() -> runJob(nanos, Map.of(), type, List.of(farFuture)))
        .satisfies(
            e ->
                assertThat(ExceptionUtils.stringifyException(e))
                    .contains("record #1 of subtask 0 of 1: Column 'ts':")
                    .contains("does not fit a timestamp in NANOSECOND"));
    assertThat(LanceTestTables.countRows(nanos)).isZero();
  }

  @Test
  void wrongLengthForAFixedSizeBinaryColumn() {
    String fixed = dir.resolve("fixed").toString();
    TestFragments.createTable(
        fixed, new Schema(List.of(Field.nullable("fb", new ArrowType.FixedSizeBinary(4)))));
    RowType type = rowType(DataTypes.FIELD("fb", DataTypes.BYTES()));
    assertThatThrownBy(() -> runJob(fixed, Map.of(), type, List.of(row(new byte[] {1, 2, 3}))))
        .satisfies(
            e ->
                assertThat(ExceptionUtils.stringifyException(e))
                    .contains(
                        "record #1 of subtask 0 of 1: Column 'fb': expected exactly 4 bytes, got"
                            + " 3"));
    assertThat(LanceTestTables.latestVersion(fixed)).isEqualTo(1);
  }

  @Test
  void unreachablePathIsNamed() throws Exception {
    Path file = Files.writeString(dir.resolve("a-file"), "not a directory");
    String path = file.resolve("table").toString();
    RowType type = rowType(DataTypes.FIELD("id", DataTypes.BIGINT().notNull()));
    assertThatThrownBy(() -> runJob(path, Map.of(), type, List.of(GenericRowData.of(1L))))
        .satisfies(
            e ->
                assertThat(ExceptionUtils.stringifyException(e))
                    .contains("Lance table '" + path + "'"));
  }

  @Test
  void uncreatablePathFailsAtOnce() {
    String path = "/proc/no-table-here.lance";
    RowType type = rowType(DataTypes.FIELD("id", DataTypes.BIGINT().notNull()));
    assertThatThrownBy(() -> runJob(path, Map.of(), type, List.of(GenericRowData.of(1L))))
        .satisfies(
            e ->
                assertThat(ExceptionUtils.stringifyException(e))
                    .contains("Lance table '" + path + "': cannot create the table")
                    .contains("No such file or directory"));
  }

  @Test
  void fileFormatLanceDoesNotKnowFailsAtOnce() {
    String path = dir.resolve("new").toString();
    RowType type = rowType(DataTypes.FIELD("id", DataTypes.BIGINT().notNull()));
    assertThatThrownBy(
            () ->
                runJob(
                    LanceSink.forRowData(type)
                        .path(path)
                        .set(LanceDatasetOptions.DATA_STORAGE_VERSION, "9.9"),
                    type,
                    List.of(GenericRowData.of(1L)),
                    PERMANENT_ONLY))
        .satisfies(
            e ->
                assertThat(ExceptionUtils.stringifyException(e))
                    .contains("Lance table '" + path + "': cannot create the table")
                    .contains("Unknown storage format: v9_9"));
    assertThat(LanceTestTables.exists(path)).isFalse();
  }

  /** A network error may pass: Flink's restarts stay, here two before the job gives up. */
  @Test
  void unreachableObjectStoreIsNamed() {
    String path = "s3://no-such-bucket/table";
    Map<String, String> storage =
        Map.of(
            "aws_access_key_id", "x",
            "aws_secret_access_key", "y",
            "aws_region", "us-east-1",
            "aws_endpoint", "http://127.0.0.1:9",
            "allow_http", "true",
            "connect_timeout", "1s",
            "timeout", "2s",
            "client_max_retries", "0");
    RowType type = rowType(DataTypes.FIELD("id", DataTypes.BIGINT().notNull()));
    assertThatThrownBy(
            () ->
                runJob(
                    LanceSink.forRowData(type).path(path).storageOptions(storage),
                    type,
                    List.of(GenericRowData.of(1L)),
                    TWO_RESTARTS))
        .satisfies(
            e -> {
              assertThat(ExceptionUtils.stringifyException(e))
                  .contains("Lance table '" + path + "'");
              assertThat(ExceptionUtils.findThrowable(e, PermanentDatasetException.class))
                  .as("a network error is not permanent")
                  .isEmpty();
            });
  }

  /** Schema errors: the job fails when the writer opens, before any record. */
  private void assertFailsLeavingTableUnchanged(RowType type, RowData record, String message) {
    assertFailsLeavingTableUnchanged(type, List.of(record), message);
  }

  /** Value errors: one good record, then the bad one (record #2). */
  private void assertValueFailsLeavingTableUnchanged(RowData bad, String message) {
    RowData good = row(0L, StringData.fromString("ok"), floats(0, 0, 0, 0));
    assertFailsLeavingTableUnchanged(MATCHING, List.of(good, bad), message);
  }

  private void assertFailsLeavingTableUnchanged(RowType type, List<RowData> rows, String message) {
    assertThatThrownBy(() -> runJob(table, Map.of(), type, rows))
        .satisfies(e -> assertThat(ExceptionUtils.stringifyException(e)).contains(message));
    assertThat(LanceTestTables.latestVersion(table)).isEqualTo(1);
    assertThat(LanceTestTables.countRows(table)).isZero();
  }

  /**
   * Like Flink's default with checkpointing (restart forever, exponential delay), only faster: a
   * permanent error must end the job anyway.
   */
  private static final Configuration PERMANENT_ONLY = restarts("exponential-delay");

  private static final Configuration TWO_RESTARTS = restarts("fixed-delay");

  private static Configuration restarts(String strategy) {
    Configuration config = new Configuration();
    config.set(RestartStrategyOptions.RESTART_STRATEGY, strategy);
    config.set(
        RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_INITIAL_BACKOFF,
        Duration.ofMillis(10));
    config.set(
        RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_MAX_BACKOFF,
        Duration.ofMillis(100));
    config.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 2);
    config.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(10));
    return config;
  }

  private static void runJob(
      String path, Map<String, String> storage, RowType type, List<RowData> rows) throws Exception {
    runJob(
        LanceSink.forRowData(type).path(path).storageOptions(storage), type, rows, PERMANENT_ONLY);
  }

  private static void runJob(
      LanceSinkBuilder<RowData> sink, RowType type, List<RowData> rows, Configuration restarts)
      throws Exception {
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(restarts);
    env.setParallelism(1);
    // No checkpoint may complete before the bad record fails the job: one that did would commit
    // the good record before it, rightly, and the table would not be left as it was.
    env.enableCheckpointing(Duration.ofHours(1).toMillis());
    env.fromData(rows, InternalTypeInfo.of(type)).sinkTo(sink.build());
    env.execute();
  }

  private static RowType rowType(DataTypes.Field... fields) {
    DataType type = DataTypes.ROW(fields).notNull();
    return (RowType) type.getLogicalType();
  }

  private static DataTypes.Field vec() {
    return DataTypes.FIELD("vec", DataTypes.ARRAY(DataTypes.FLOAT()));
  }

  private static GenericArrayData floats(float... values) {
    return new GenericArrayData(values);
  }

  private static RowData row(Object... values) {
    return GenericRowData.of(values);
  }
}
