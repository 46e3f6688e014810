package dev.flinklance.source.stream;

import static dev.flinklance.source.testing.StoppedJobs.assertPermanent;
import static dev.flinklance.source.testing.StoppedJobs.failureOf;
import static org.apache.flink.core.execution.SavepointFormatType.CANONICAL;
import static org.assertj.core.api.Assertions.assertThat;

import dev.flinklance.access.TableRef;
import dev.flinklance.source.LanceSource;
import dev.flinklance.source.LanceSourceBuilder;
import dev.flinklance.source.OnSchemaChange;
import dev.flinklance.source.testing.StoppedJobs;
import dev.flinklance.testing.Await;
import dev.flinklance.testing.EmittedRows;
import dev.flinklance.testing.TestClusters;
import dev.flinklance.testing.TestRows;
import dev.flinklance.testing.TestTables;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.stream.LongStream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.lance.Dataset;
import org.lance.schema.ColumnAlteration;

/**
 * Streaming reads, changelog and append-only, while another client adds, renames and drops columns
 * through plain Lance ({@code scan.on-schema-change}): an added column changes nothing a read
 * emits; a read column renamed or dropped fails the read naming the version and the change (the
 * default), after every change before it, also when restored from a savepoint taken before it; with
 * {@code continue} the column reads as NULL from then on.
 */
@Timeout(value = 180, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class StreamingSchemaChangeITCase {
  @RegisterExtension static final MiniClusterExtension CLUSTER = TestClusters.withoutRestarts();

  @TempDir Path dir;

  private String table;

  @Test
  void changelogAndAppendOnlyReadsAcrossAddRenameAndDrop() throws Exception {
    table = dir.resolve("customers").toString();
    TestTables.create(table, TestRows.ROW_TYPE, Map.of());
    TestTables.append(
        table, TestRows.ROW_TYPE, LongStream.range(0, 4).mapToObj(TestRows::row).toList(), 2); // 2
    // the columns as a job declares them (a builder without them reads the table's columns then)
    LanceSourceBuilder changelog = read().columns("id", "name").changelog(true).primaryKey("id");
    LanceSource changelogThatFails = changelog.build(); // resolved now, as a job is when built
    LanceSource changelogThatContinues = changelog.onSchemaChange(OnSchemaChange.CONTINUE).build();
    Recorded failing = new Recorded();
    Recorded continuing = new Recorded();
    JobClient changelogJob = start(changelogThatFails, failing, null);
    JobClient appendOnlyJob =
        start(
            read().columns("id", "name").onSchemaChange(OnSchemaChange.CONTINUE).build(),
            continuing,
            null);
    awaitRows(changelogJob, failing, 4);
    awaitRows(appendOnlyJob, continuing, 4);

    alter(dataset -> dataset.addColumns(List.of(bigint("extra")))); // 3
    append(row(4, "name-4", 40L), "name", "extra"); // 4
    List<String> beforeRename =
        List.of(
            "+I[0, name-0]", "+I[1, name-1]", "+I[2, name-2]", "+I[3, name-3]", "+I[4, name-4]");
    awaitRows(changelogJob, failing, 5);
    awaitRows(appendOnlyJob, continuing, 5);
    assertThat(failing.rows()).containsExactlyInAnyOrderElementsOf(beforeRename);
    assertThat(continuing.rows()).containsExactlyInAnyOrderElementsOf(beforeRename);
    String savepoint =
        changelogJob
            .stopWithSavepoint(false, dir.resolve("savepoints").toUri().toString(), CANONICAL)
            .get();

    alter(
        dataset ->
            dataset.alterColumns(
                List.of(new ColumnAlteration.Builder("name").rename("label").build()))); // 5
    append(row(5, "label-5", 50L), "label", "extra"); // 6
    awaitRows(appendOnlyJob, continuing, 6);
    assertThat(continuing.rows().get(5)).isEqualTo("+I[5, null]");

    Recorded restored = new Recorded();
    assertPermanent(
        failureOf(start(changelogThatFails, restored, savepoint)),
        table,
        "version 5 (Project) renamed column 'name' to 'label', which this streaming read reads;"
            + " with 'scan.on-schema-change' = 'fail' it stops here, having emitted every change"
            + " up to version 4.");
    assertThat(restored.rows()).isEmpty();
    Recorded restoredToContinue = new Recorded();
    JobClient continued = start(changelogThatContinues, restoredToContinue, savepoint);
    awaitRows(continued, restoredToContinue, 1);
    Await.cancel(continued, Duration.ofSeconds(60));
    assertThat(restoredToContinue.rows()).containsExactly("+I[5, null]");

    Recorded labels = new Recorded();
    JobClient labelJob =
        start(read().startAfterVersion(6).build(), labels, null); // id, label, extra
    alter(dataset -> dataset.dropColumns(List.of("extra"))); // 7
    append(GenericRowData.of(6L, StringData.fromString("label-6")), "label"); // 8
    assertPermanent(
        failureOf(labelJob),
        table,
        "version 7 (Project) dropped column 'extra', which this streaming read reads;");
    assertThat(labels.rows()).isEmpty();
    awaitRows(appendOnlyJob, continuing, 7);
    Await.cancel(appendOnlyJob, Duration.ofSeconds(60));
    assertThat(continuing.rows().subList(5, 7)).containsExactly("+I[5, null]", "+I[6, null]");
  }

  private LanceSourceBuilder read() {
    return LanceSource.builder()
        .path(table)
        .streaming()
        .discoveryInterval(Duration.ofMillis(100))
        .batchSize(16);
  }

  private static GenericRowData row(long id, String text, long extra) {
    return GenericRowData.of(id, StringData.fromString(text), extra);
  }

  /** Appends one row of columns id, {@code columns} as another client would. */
  private void append(GenericRowData row, String... columns) {
    List<RowType.RowField> fields = new ArrayList<>();
    fields.add(new RowType.RowField("id", new BigIntType(false)));
    fields.add(new RowType.RowField(columns[0], VarCharType.STRING_TYPE));
    if (columns.length > 1) {
      fields.add(new RowType.RowField(columns[1], new BigIntType()));
    }
    TestTables.append(table, new RowType(fields), List.of(row), 10);
  }

  private static Field bigint(String name) {
    return new Field(name, FieldType.nullable(new ArrowType.Int(64, true)), null);
  }

  /** Another client changes the table's schema through plain Lance. */
  private void alter(Consumer<Dataset> change) {
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = new TableRef(table, Map.of()).open(allocator)) {
      change.accept(dataset);
    }
  }

  private JobClient start(LanceSource source, Recorded recorded, String savepoint)
      throws Exception {
    StreamExecutionEnvironment env = StoppedJobs.environment(savepoint);
    env.fromSource(source, WatermarkStrategy.noWatermarks(), "lance")
        .uid("lance")
        .map(recorded)
        .uid("recorded")
        .returns(Types.STRING)
        .sinkTo(new DiscardingSink<>());
    return env.executeAsync("schema-changing read");
  }

  private static void awaitRows(JobClient job, Recorded recorded, int count)
      throws InterruptedException {
    Await.until(
        count + " rows", Duration.ofSeconds(60), job, () -> recorded.rows().size() >= count);
  }

  /** Records the rows (id and the second column) as they leave the reader it is chained to. */
  private static final class Recorded implements MapFunction<RowData, String> {
    private static final long serialVersionUID = 1L;
    private final String token = UUID.randomUUID().toString();

    List<String> rows() {
      return EmittedRows.of(token);
    }

    @Override
    public String map(RowData row) {
      String formatted =
          row.getRowKind().shortString()
              + "["
              + row.getLong(0)
              + ", "
              + (row.isNullAt(1) ? "null" : row.getString(1).toString())
              + "]";
      EmittedRows.add(token, formatted);
      return formatted;
    }
  }
}
