package dev.flinklance.sink.writer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import dev.flinklance.access.TableRef;
import dev.flinklance.errors.PermanentDatasetException;
import dev.flinklance.schema.SchemaEvolution;
import dev.flinklance.sink.SchemaEvolutionMode;
import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.TestFragments;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.IntPredicate;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Table creation is race-free: concurrent first writers never overwrite each other. */
class TableBootstrapTest {
  @TempDir Path dir;

  /** Every caller a creator (separate jobs): races happen, are undone, and nothing is lost. */
  @Test
  void concurrentCreatorsProduceOneTableAndNoOverwrite() throws Exception {
    String uri = dir.resolve("t").toString();
    ensureConcurrently(uri, 8, i -> true);
    assertThat(LanceTestTables.countRows(uri)).isZero();
  }

  /**
   * Every caller a creator while another writer appends rows as soon as the table exists: a
   * creation racing in later must never hide those rows.
   */
  @Test
  void concurrentCreatorsNeverHideRowsAppendedMeanwhile() throws Exception {
    String uri = dir.resolve("t").toString();
    Thread appender =
        new Thread(
            () -> {
              while (!LanceTestTables.hasVersion(uri)) {
                Thread.onSpinWait();
              }
              // A writer retries a commit that conflicts with a concurrent one, as the sink does
              for (int attempt = 0; ; attempt++) {
                try {
                  LanceTestTables.appendFragments(uri, TestFragments.write(uri, 1, 2, 3));
                  return;
                } catch (RuntimeException conflict) {
                  if (attempt == 20) {
                    throw conflict;
                  }
                }
              }
            });
    appender.start();
    ensureConcurrently(uri, 8, i -> true);
    appender.join();
    assertThat(LanceTestTables.readLongs(uri, "id"))
        .as("history: %s", LanceTestTables.commits(uri))
        .containsExactlyInAnyOrder(1L, 2L, 3L);
  }

  /** One creator, the rest wait for it (the subtasks of one job): no race, one version. */
  @Test
  void subtasksOfOneJobLeaveTheCreationToOne() throws Exception {
    String uri = dir.resolve("t").toString();
    ensureConcurrently(uri, 8, i -> i == 0);
    assertThat(LanceTestTables.latestVersion(uri)).isEqualTo(1);
  }

  /**
   * Writers whose rows have a column the existing table lacks, under add-columns: subtask 0 adds
   * it, the others wait for it; when every caller adds at once (separate jobs), the races are
   * harmless. Either way one commit adds the column, and every caller sees it.
   */
  @ParameterizedTest(name = "every caller adds: {0}")
  @ValueSource(booleans = {false, true})
  void concurrentWritersAddAMissingColumnOnce(boolean everyCallerAdds) throws Exception {
    String uri = dir.resolve("t").toString();
    TestFragments.createTable(uri);
    Schema wider = withEmail(TestFragments.SCHEMA.getFields());
    TableRef table = new TableRef(uri, Map.of());
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<TableBootstrap.TargetTable>> layouts = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        boolean creates = everyCallerAdds || i == 0;
        layouts.add(
            pool.submit(
                () ->
                    TableBootstrap.ensureTable(
                        table, wider, false, null, creates, SchemaEvolutionMode.ADD_COLUMNS)));
      }
      for (Future<TableBootstrap.TargetTable> layout : layouts) {
        assertThat(layout.get().schema().getFields())
            .extracting(Field::getName)
            .containsExactly("id", "name", "email");
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(LanceTestTables.commits(uri))
        .filteredOn(c -> c.properties().containsKey(SchemaEvolution.STAMP))
        .hasSize(1);
  }

  /** A field the stream's ROW column has and the table's lacks is added inside it, nullable. */
  @Test
  void aMissingRowFieldIsAddedInsideItsColumn() {
    String uri = dir.resolve("t").toString();
    Field a = Field.nullable("a", new ArrowType.Int(32, true));
    Field b = Field.nullable("b", ArrowType.Utf8.INSTANCE);
    TestFragments.createTable(uri, new Schema(List.of(point(a))));
    TableBootstrap.TargetTable layout =
        TableBootstrap.ensureTable(
            new TableRef(uri, Map.of()),
            new Schema(List.of(point(a, b))),
            false,
            null,
            true,
            SchemaEvolutionMode.ADD_COLUMNS);
    assertThat(layout.schema().getFields().get(0).getChildren())
        .extracting(Field::getName, Field::getType)
        .containsExactly(tuple("a", a.getType()), tuple("b", b.getType()));
    assertThat(LanceTestTables.latestVersion(uri)).isEqualTo(2);
  }

  private static Field point(Field... fields) {
    return new Field("point", FieldType.nullable(ArrowType.Struct.INSTANCE), List.of(fields));
  }

  /** A NOT NULL column cannot be added: the table's rows would have no value in it. */
  @Test
  void aMissingNotNullColumnIsRefusedUnderAddColumns() {
    String uri = dir.resolve("t").toString();
    TestFragments.createTable(uri);
    List<Field> columns = new ArrayList<>(TestFragments.SCHEMA.getFields());
    columns.add(Field.notNullable("code", new ArrowType.Int(32, true)));
    assertThatThrownBy(
            () ->
                TableBootstrap.ensureTable(
                    new TableRef(uri, Map.of()),
                    new Schema(columns),
                    false,
                    null,
                    true,
                    SchemaEvolutionMode.ADD_COLUMNS))
        .isInstanceOf(PermanentDatasetException.class)
        .hasMessageContaining(uri)
        .hasMessageContaining("'code' is NOT NULL");
    assertThat(LanceTestTables.latestVersion(uri)).as("nothing committed").isEqualTo(1);
  }

  /** Under none, a missing column fails naming the table, the column and the option. */
  @Test
  void aMissingColumnWithoutSchemaEvolutionIsRefused() {
    String uri = dir.resolve("t").toString();
    TestFragments.createTable(uri);
    Schema wider = withEmail(TestFragments.SCHEMA.getFields().subList(0, 1));
    assertThatThrownBy(
            () ->
                TableBootstrap.ensureTable(
                    new TableRef(uri, Map.of()),
                    wider,
                    false,
                    null,
                    true,
                    SchemaEvolutionMode.NONE))
        .isInstanceOf(PermanentDatasetException.class)
        .hasMessageContaining(uri)
        .hasMessageContaining(
            "the stream has columns the table lacks: [email Utf8]; set 'sink.schema-evolution' ="
                + " 'add-columns'");
    assertThat(LanceTestTables.latestVersion(uri)).isEqualTo(1);
  }

  /** {@code columns} and a nullable {@code email STRING}. */
  private static Schema withEmail(List<Field> columns) {
    List<Field> fields = new ArrayList<>(columns);
    fields.add(Field.nullable("email", ArrowType.Utf8.INSTANCE));
    return new Schema(fields);
  }

  private static void ensureConcurrently(String uri, int callers, IntPredicate creator)
      throws Exception {
    TableRef table = new TableRef(uri, Map.of());
    CountDownLatch start = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(callers);
    try {
      List<Future<TableBootstrap.TargetTable>> layouts = new ArrayList<>();
      for (int i = 0; i < callers; i++) {
        boolean creates = creator.test(i);
        layouts.add(
            pool.submit(
                () -> {
                  start.await();
                  return TableBootstrap.ensureTable(
                      table, TestFragments.SCHEMA, false, null, creates, SchemaEvolutionMode.NONE);
                }));
      }
      start.countDown();
      for (Future<TableBootstrap.TargetTable> layout : layouts) {
        assertThat(layout.get().schema()).isEqualTo(TestFragments.SCHEMA);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  /**
   * Lance's creation commit overwrites a table that appears between its existence check and its
   * commit. Simulated here by creating over a table that already holds rows: the rows survive.
   */
  @Test
  void aCreationThatLandsOnAnExistingTableIsUndone() {
    String uri = dir.resolve("t").toString();
    TestFragments.createTable(uri);
    LanceTestTables.appendFragments(uri, TestFragments.write(uri, 1, 2, 3));
    long versionBefore = LanceTestTables.latestVersion(uri);

    try (BufferAllocator allocator = new RootAllocator()) {
      assertThat(
              new TableRef(uri, Map.of())
                  .createIfAbsent(allocator, TestFragments.SCHEMA, false, null))
          .as("someone else's table: open it instead")
          .isEmpty();
    }
    assertThat(LanceTestTables.readLongs(uri, "id")).containsExactlyInAnyOrder(1L, 2L, 3L);
    assertThat(LanceTestTables.latestVersion(uri))
        .as("our overwrite, then their fragments appended again")
        .isEqualTo(versionBefore + 2);
  }

  /** A creation with another schema than theirs cannot take their rows: their version returns. */
  @Test
  void aCreationWithAnotherSchemaRestoresTheirVersion() {
    String uri = dir.resolve("t").toString();
    TestFragments.createTable(uri);
    LanceTestTables.appendFragments(uri, TestFragments.write(uri, 1, 2));
    Schema other = new Schema(List.of(Field.notNullable("other", new ArrowType.Int(32, true))));

    try (BufferAllocator allocator = new RootAllocator()) {
      assertThat(new TableRef(uri, Map.of()).createIfAbsent(allocator, other, false, null))
          .isEmpty();
    }
    assertThat(LanceTestTables.readLongs(uri, "id")).containsExactlyInAnyOrder(1L, 2L);
  }

  @Test
  void createsWithLancesDefaultFormatWhenNoneIsRequested() {
    String uri = dir.resolve("t").toString();
    try (BufferAllocator allocator = new RootAllocator();
        org.lance.Dataset created =
            new TableRef(uri, Map.of())
                .createIfAbsent(allocator, TestFragments.SCHEMA, false, null)
                .orElseThrow()) {
      assertThat(created.getLanceFileFormatVersion()).isEqualTo("2.1");
      assertThat(created.hasStableRowIds()).isFalse();
    }
  }

  @Test
  void createsWithTheRequestedFormatAndRowIds() {
    String uri = dir.resolve("t").toString();
    try (BufferAllocator allocator = new RootAllocator();
        org.lance.Dataset created =
            new TableRef(uri, Map.of())
                .createIfAbsent(allocator, TestFragments.SCHEMA, true, "2.2")
                .orElseThrow()) {
      assertThat(created.version()).isEqualTo(1);
      assertThat(created.getLanceFileFormatVersion()).isEqualTo("2.2");
      assertThat(created.hasStableRowIds()).isTrue();
    }
  }

  @Test
  void existingTableIsOpenedNotRecreated() {
    String uri = dir.resolve("t").toString();
    TestFragments.createTable(uri);
    LanceTestTables.appendFragments(uri, TestFragments.write(uri, 7, 8));
    TableBootstrap.TargetTable layout =
        TableBootstrap.ensureTable(
            new TableRef(uri, Map.of()),
            TestFragments.SCHEMA,
            true,
            "2.2",
            true,
            SchemaEvolutionMode.NONE);
    assertThat(layout.dataStorageVersion())
        .as("an existing table keeps its format")
        .isEqualTo("2.1");
    assertThat(LanceTestTables.latestVersion(uri)).isEqualTo(2);
    assertThat(LanceTestTables.readLongs(uri, "id")).containsExactlyInAnyOrder(7L, 8L);
  }
}
