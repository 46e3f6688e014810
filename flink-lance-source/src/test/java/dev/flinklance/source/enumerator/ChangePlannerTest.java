package dev.flinklance.source.enumerator;

import static dev.flinklance.source.OnSchemaChange.CONTINUE;
import static dev.flinklance.source.testing.SourceTable.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flinklance.access.TableRef;
import dev.flinklance.access.VersionMark;
import dev.flinklance.errors.PermanentDatasetException;
import dev.flinklance.source.LanceScan;
import dev.flinklance.source.LanceSourceBuilder;
import dev.flinklance.source.OnDelete;
import dev.flinklance.source.OnOverwrite;
import dev.flinklance.source.SourceScans;
import dev.flinklance.source.split.SplitKind;
import dev.flinklance.source.testing.KeyedChangelog;
import dev.flinklance.source.testing.SourceTable;
import dev.flinklance.testing.Await;
import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.TestRows;
import dev.flinklance.testing.TestTables;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.RowType;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.lance.Dataset;
import org.lance.cleanup.CleanupPolicy;
import org.lance.schema.ColumnAlteration;

/**
 * The streaming read's planner on real tables written with Lance: where each {@code
 * scan.startup.mode} starts, the splits of each version's change, what {@code scan.on-overwrite}
 * and {@code scan.on-delete} make of a version, and the errors no restart can fix (a version or
 * table gone, a table replaced, the columns read gone). The rows the splits read are read by the
 * source's reader ({@link PlannedRead}).
 */
class ChangePlannerTest {
  @TempDir Path dir;
  private SourceTable table;

  /** Version 1 empty; 2: ids 0..19 in fragments 0, 1; 3: ids 20..29 in fragment 2. */
  @BeforeEach
  void threeVersions() {
    table = SourceTable.create(dir.resolve("t"), false);
    table.append(0, 20, 10);
    table.append(20, 30, 10);
  }

  @Test
  void fullStartsWithEverySplitOfTheLatestVersion() {
    assertThat(planner(streaming()).start())
        .isEqualTo(
            new ChangePlanner.Plan(
                table.mark(3),
                List.of(
                    table.split(SplitKind.SNAPSHOT, 0, 3),
                    table.split(SplitKind.SNAPSHOT, 1, 3),
                    table.split(SplitKind.SNAPSHOT, 2, 3)),
                3));
  }

  @Test
  void latestStartsAfterTheLatestVersion() {
    assertThat(planner(streaming().startFromLatest()).start())
        .isEqualTo(new ChangePlanner.Plan(table.mark(3), List.of(), 3));
  }

  @Test
  void versionStartsAfterThatVersionAndZeroBeforeTheFirst() {
    ChangePlanner.Plan afterTwo = planner(streaming().startAfterVersion(2)).start();
    assertThat(afterTwo).isEqualTo(new ChangePlanner.Plan(table.mark(2), List.of(), 3));
    assertThat(afterTwo.caughtUp()).isFalse();
    assertThat(planner(streaming().startAfterVersion(0)).start())
        .isEqualTo(new ChangePlanner.Plan(VersionMark.NO_TABLE, List.of(), 3));
    assertThatThrownBy(() -> planner(streaming().startAfterVersion(4)).start())
        .isInstanceOf(PermanentDatasetException.class)
        .hasMessage(
            "Lance table '"
                + table.uri()
                + "': scan.startup.version 4 does not exist: the latest version is 3");
  }

  /**
   * The newest version committed at or before the instant (Lance's commit time to the millisecond
   * below); before the first: version 0.
   */
  @Test
  void timestampStartsAfterTheLastVersionCommittedByThen() throws Exception {
    long afterThird = LanceTestTables.commitMillis(table.uri(), 3) + 1;
    Await.until(
        "the clock past " + afterThird,
        Duration.ofSeconds(10),
        () -> System.currentTimeMillis() > afterThird);
    table.append(30, 40, 10); // 4, committed after afterThird
    LanceSourceBuilder afterThirdCommitted = streaming().startFromTimestamp(afterThird);
    assertThat(planner(afterThirdCommitted).start())
        .isEqualTo(new ChangePlanner.Plan(table.mark(3), List.of(), 4));
    try (PlannedRead read = read(afterThirdCommitted)) {
      assertThat(read.start()).isEqualTo(rows("+I", 30, 40));
    }
    long beforeFirst = LanceTestTables.commitMillis(table.uri(), 1) - 1;
    assertThat(planner(streaming().startFromTimestamp(beforeFirst)).start())
        .isEqualTo(new ChangePlanner.Plan(VersionMark.NO_TABLE, List.of(), 4));
  }

  /** The rows each start position reads, then every append after it. */
  @Test
  void eachStartPositionReadsItsRowsThenTheAppendsAfterIt() throws Exception {
    try (PlannedRead full = read(streaming());
        PlannedRead latest = read(streaming().startFromLatest());
        PlannedRead afterTwo = read(streaming().startAfterVersion(2));
        PlannedRead afterZero = read(streaming().startAfterVersion(0))) {
      assertThat(full.start()).isEqualTo(rows("+I", 0, 30));
      assertThat(latest.start()).isEmpty();
      assertThat(afterTwo.start()).isEqualTo(rows("+I", 20, 30));
      assertThat(afterZero.start()).as("the whole history").isEqualTo(rows("+I", 0, 30));
      table.append(30, 40, 5); // 4
      for (PlannedRead read : List.of(full, latest, afterTwo, afterZero)) {
        assertThat(read.next()).isEqualTo(rows("+I", 30, 40));
        assertThat(read.position()).isEqualTo(table.mark(4));
      }
    }
  }

  /**
   * Lance's compaction rewrites rows into other fragments: an append-only read emits nothing of it,
   * also on a table with a BTree index, whose compaction's transaction lance-core 7.0.0 cannot read
   * back.
   */
  @ParameterizedTest(name = "indexed {0}")
  @ValueSource(booleans = {false, true})
  void aCompactionEmitsNothing(boolean indexed) throws Exception {
    if (indexed) {
      TestTables.createScalarIndex(table.uri(), "id");
    }
    try (PlannedRead read = read(streaming())) {
      assertThat(read.start()).isEqualTo(rows("+I", 0, 30));
      table.append(30, 40, 5);
      TestTables.compact(table.uri());
      table.append(40, 50, 5);
      assertThat(read.next()).isEqualTo(rows("+I", 30, 50));
      assertThat(read.failure()).isNull();
    }
    assertThat(LanceTestTables.commits(table.uri()))
        .extracting(LanceTestTables.Commit::operation)
        .contains(indexed ? LanceTestTables.UNREADABLE : "Rewrite");
  }

  @Test
  void aStartBeforeTheVersionsStillKeptIsAnError() {
    long beforeFirst = LanceTestTables.commitMillis(table.uri(), 1) - 1;
    LanceSourceBuilder fromVersion1 = streaming().startAfterVersion(1);
    LanceSourceBuilder fromEarlier = streaming().startFromTimestamp(beforeFirst);
    cleanUpBefore(3);
    assertThatThrownBy(() -> planner(fromVersion1).start())
        .isInstanceOf(PermanentDatasetException.class)
        .hasMessageStartingWith(
            "Lance table '" + table.uri() + "': cannot open scan.startup.version 1 (cleaned up?)");
    assertThatThrownBy(() -> planner(fromEarlier).start())
        .isInstanceOf(PermanentDatasetException.class)
        .hasMessageStartingWith(
            "Lance table '"
                + table.uri()
                + "': scan.startup.timestamp-millis "
                + beforeFirst
                + " is older than the oldest version still kept (3, committed at ");
  }

  /**
   * Each version's splits: added fragments, fragments a delete left rows in and fragments it
   * removed, a merge-insert's both; a compaction none. The position moves past each.
   */
  @Test
  void aVersionsSplitsAreWhatItDidToTheRows() {
    table.delete("id = 1 OR id >= 20"); // 4: rows of fragment 0, all of fragment 2
    table.upsert(Map.of(15L, "new-15", 40L, "name-40")); // 5: a row of fragment 1, fragment 3
    TestTables.compact(table.uri()); // Rewrite
    long compacted = LanceTestTables.latestVersion(table.uri());
    ChangePlanner planner = planner(streaming().changelog(true));

    ChangePlanner.Plan plan = planner.next(table.mark(3));
    assertThat(plan.splits())
        .containsExactly(
            table.split(SplitKind.REMOVED, 2, 4),
            table.split(SplitKind.DELETED_ROWS, 0, 4),
            table.split(SplitKind.DELETED_ROWS, 1, 5),
            table.added(3, 5));
    assertThat(plan.position()).isEqualTo(table.mark(compacted));
    assertThat(plan.caughtUp()).isTrue();
    assertThat(planner.next(table.mark(compacted)))
        .isEqualTo(new ChangePlanner.Plan(table.mark(compacted), List.of(), compacted));
  }

  /** At most {@value ChangePlanner#MAX_VERSIONS_PER_CALL} versions a call: not caught up. */
  @Test
  void aCallPlansAtMostAHundredVersions() {
    for (long id = 30; id < 30 + ChangePlanner.MAX_VERSIONS_PER_CALL; id++) {
      table.append(id, id + 1, 1);
    }
    ChangePlanner.Plan plan = planner(streaming()).next(table.mark(2));
    assertThat(plan.position()).isEqualTo(table.mark(102));
    assertThat(plan.splits()).hasSize(100).last().isEqualTo(table.added(101, 102));
    assertThat(plan.caughtUp()).isFalse();
    assertThat(plan.latest()).isEqualTo(103);
  }

  /** {@code scan.on-overwrite} = changelog: every old row -D, then every new row +I. */
  @Test
  void anOverwriteAsAChangelog() throws Exception {
    try (PlannedRead read = read(streaming().changelog(true).onOverwrite(OnOverwrite.CHANGELOG))) {
      KeyedChangelog changelog = new KeyedChangelog().apply(read.start());
      TestTables.overwrite(
          table.uri(), TestRows.ROW_TYPE, List.of(TestRows.row(3), TestRows.row(100)));
      List<String> overwrite = read.next();
      assertThat(overwrite.subList(0, 30)).containsExactlyInAnyOrderElementsOf(rows("-D", 0, 30));
      assertThat(overwrite.subList(30, 32)).containsExactly("+I[3, name-3]", "+I[100, name-100]");
      table.append(200, 202, 10);
      changelog.apply(overwrite).apply(read.next());
      assertThat(changelog.violations()).isEmpty();
      assertThat(changelog.rows()).isEqualTo(KeyedChangelog.tableRows(table.uri()));
    }
  }

  /** {@code scan.on-overwrite} = skip: nothing for it, the appends after it. */
  @Test
  void anOverwriteSkipped() throws Exception {
    try (PlannedRead read = read(streaming().onOverwrite(OnOverwrite.SKIP))) {
      assertThat(read.start()).containsExactlyElementsOf(rows("+I", 0, 30));
      TestTables.overwrite(table.uri(), TestRows.ROW_TYPE, List.of(TestRows.row(100)));
      table.append(200, 202, 10);
      assertThat(read.next()).containsExactlyElementsOf(rows("+I", 200, 202));
      assertThat(read.failure()).isNull();
    }
  }

  /**
   * By default an overwrite stops the read, appending or changelog, naming the table and version,
   * after the versions before it (planned in the same call) and without a row of it.
   */
  @ParameterizedTest(name = "changelog {0}")
  @ValueSource(booleans = {false, true})
  void anOverwriteStopsTheReadByDefault(boolean changelog) throws Exception {
    try (PlannedRead read = read(streaming().changelog(changelog))) {
      assertThat(read.start()).hasSize(30);
      table.append(30, 35, 10); // 4
      TestTables.overwrite(table.uri(), TestRows.ROW_TYPE, List.of(TestRows.row(100))); // 5
      assertThat(read.next()).containsExactlyElementsOf(rows("+I", 30, 35));
      assertThat(read.position()).isEqualTo(table.mark(4));
      assertPermanent(
          read.failure(),
          "version 5 (Overwrite) replaced the table's rows; with 'scan.on-overwrite' = 'fail' the"
              + " streaming read stops here, having emitted every change up to version 4 and none"
              + " of version 5.");
    }
  }

  /** An append-only read stops at a version that deletes rows, after the versions before it. */
  @Test
  void anAppendOnlyReadStopsAtADelete() throws Exception {
    try (PlannedRead read = read(streaming().startAfterVersion(1))) {
      table.delete("id = 1"); // 4
      assertThat(read.start()).containsExactlyElementsOf(rows("+I", 0, 30));
      assertThat(read.position()).isEqualTo(table.mark(3));
      assertPermanent(
          read.failure(),
          "version 4 (Delete) deletes or updates rows, which an append-only streaming read"
              + " ('scan.changelog' = 'false') cannot emit; with 'scan.on-delete' = 'fail' it"
              + " stops here, having emitted every change up to version 3.");
    }
  }

  /**
   * With {@code scan.on-delete} = skip an append-only read emits nothing of a delete or of an
   * update (not its new rows either); a merge-insert that only inserts is an append.
   */
  @Test
  void anAppendOnlyReadSkipsDeletesAndUpdatesWhenAsked() throws Exception {
    try (PlannedRead read = read(streaming().startFromLatest().onDelete(OnDelete.SKIP))) {
      assertThat(read.start()).isEmpty();
      table.delete("id = 1");
      table.upsert(Map.of(2L, "new-2", 50L, "name-50")); // skipped as a whole
      table.upsert(Map.of(60L, "name-60")); // inserts only: an append
      table.append(70, 72, 10);
      assertThat(read.next())
          .containsExactly("+I[60, name-60]", "+I[70, name-70]", "+I[71, name-71]");
      assertThat(read.failure()).isNull();
    }
  }

  /**
   * A version the read needs was cleaned up (kept: a tagged older version, removed: the ones after
   * it): an error naming the table and the versions, never a silent gap.
   */
  @Test
  void aCleanedUpVersionIsAnError() throws Exception {
    table.delete("id = 1"); // 4
    table.delete("id = 2"); // 5
    table.append(40, 42, 10); // 6
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = new TableRef(table.uri(), Map.of()).open(allocator)) {
      dataset.tags().create("kept", 3);
    }
    cleanUpBefore(6);
    assertThatThrownBy(() -> planner(streaming().changelog(true)).next(table.mark(3)))
        .isInstanceOf(PermanentDatasetException.class)
        .hasMessageContaining(
            "Lance table '"
                + table.uri()
                + "': cannot read what the versions after 3 changed: version 4 no longer exists"
                + " (cleaned up?)");
  }

  @Test
  void aDroppedTableIsAnError() {
    ChangePlanner planner = planner(streaming());
    VersionMark seen = table.mark(3);
    Dataset.drop(table.uri(), Map.of());
    assertThatThrownBy(() -> planner.next(seen))
        .isInstanceOf(PermanentDatasetException.class)
        .hasMessageContaining("Lance table '" + table.uri() + "': the table does not exist");
  }

  /**
   * Replaced by another table with fewer versions than the read had seen (moved into place, so that
   * the read never finds no table).
   */
  @Test
  void aReplacedTableIsAnError() throws Exception {
    LanceScan scan = SourceScans.of(streaming());
    VersionMark seen = table.mark(3);
    String other = dir.resolve("other").toString();
    TestTables.create(other, TestRows.ROW_TYPE, Map.of());
    TestTables.append(other, TestRows.ROW_TYPE, List.of(TestRows.row(7)), 10);
    Files.move(Path.of(table.uri()), dir.resolve("old"), StandardCopyOption.ATOMIC_MOVE);
    Files.move(Path.of(other), Path.of(table.uri()), StandardCopyOption.ATOMIC_MOVE);
    assertThatThrownBy(() -> new ChangePlanner(scan).next(seen))
        .isInstanceOf(PermanentDatasetException.class)
        .hasMessageContaining(
            "Lance table '"
                + table.uri()
                + "': the table was replaced while this job was reading it (its latest version is"
                + " 2, but this job already saw version 3)");
  }

  /**
   * Another client added a column after the version the read starts at: read as NULL there, the
   * table as it was; declared NOT NULL, or pairing the changelog's updates, it cannot be.
   */
  @Test
  void aColumnAddedLaterReadsAsNullInTheVersionsBefore() throws Exception {
    addNullableColumn("extra"); // 4
    LanceSourceBuilder fromVersion1 = streaming().startAfterVersion(1);
    try (PlannedRead read = read(fromVersion1)) {
      assertThat(read.start().subList(0, 2))
          .containsExactly("+I[0, name-0, null]", "+I[1, name-1, null]");
      assertThat(read.position()).isEqualTo(table.mark(4));
    }

    LanceScan nullable = SourceScans.of(fromVersion1);
    RowType notNull =
        new RowType(
            List.of(
                nullable.rowType().getFields().get(0),
                nullable.rowType().getFields().get(1),
                new RowType.RowField("extra", new BigIntType(false))));
    assertThatThrownBy(() -> new ChangePlanner(withRowType(nullable, notNull)).start())
        .isInstanceOf(PermanentDatasetException.class)
        .hasMessageContaining(
            "column 'extra' is declared NOT NULL, but version 1 does not have it (it was added"
                + " later), so it would read as NULL there");
    LanceSourceBuilder pairedByIt =
        streaming().startAfterVersion(1).changelog(true).columns("id", "name").primaryKey("extra");
    assertThatThrownBy(() -> planner(pairedByIt).start())
        .isInstanceOf(PermanentDatasetException.class)
        .hasMessageContaining(
            "column 'extra' pairs the changelog's updates, but version 1 does not have it (it was"
                + " added later)");
  }

  /** A column the read needs and the latest version lacks too was dropped: no restart helps. */
  @Test
  void aDroppedColumnIsAnError() {
    LanceScan scan = SourceScans.of(streaming());
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = new TableRef(table.uri(), Map.of()).open(allocator)) {
      dataset.dropColumns(List.of("name"));
    }
    assertThatThrownBy(() -> new ChangePlanner(scan).start())
        .isInstanceOf(PermanentDatasetException.class)
        .hasMessageContaining("version 4 no longer has the columns the job reads");
  }

  /**
   * Another client drops (v4) a column the read reads, then appends rows without it (v5): with the
   * default 'fail' the read emits every version before and fails naming the version and the column;
   * with 'continue' the column reads as NULL from then on.
   */
  @Test
  void aColumnDroppedLaterFailsOrReadsAsNull() throws Exception {
    LanceSourceBuilder fromLatest = streaming().startFromLatest(); // reads id, name
    try (PlannedRead failing = read(fromLatest);
        PlannedRead continuing = read(streaming().startFromLatest().onSchemaChange(CONTINUE))) {
      assertThat(failing.start()).isEmpty();
      assertThat(continuing.start()).isEmpty();
      alter(dataset -> dataset.dropColumns(List.of("name"))); // 4
      TestTables.append(table.uri(), ID_ONLY, List.of(GenericRowData.of(30L)), 10); // 5

      assertThat(failing.next()).isEmpty();
      assertPermanent(
          failing.failure(),
          "version 4 (Project) dropped column 'name', which this streaming read reads; with"
              + " 'scan.on-schema-change' = 'fail' it stops here, having emitted every change up"
              + " to version 3.");
      assertThat(continuing.next()).containsExactly("+I[30, null]");
      assertThat(continuing.failure()).isNull();
    }
  }

  /** Field ids tell a rename from a drop. */
  @Test
  void aRenamedOrReplacedColumnIsNamedInTheFailure() throws Exception {
    try (PlannedRead renamed = read(streaming().startFromLatest())) {
      renamed.start();
      alter(
          dataset ->
              dataset.alterColumns(
                  List.of(new ColumnAlteration.Builder("name").rename("label").build()))); // 4
      renamed.next();
      assertPermanent(
          renamed.failure(),
          "version 4 (Project) renamed column 'name' to 'label', which this streaming read reads;");
    }
    try (PlannedRead replaced = read(streaming().startFromLatest().columns("id", "label"))) {
      replaced.start();
      alter(dataset -> dataset.dropColumns(List.of("label"))); // 5
      addNullableColumn("label"); // 6, a BIGINT now
      replaced.next();
      assertPermanent(
          replaced.failure(),
          "version 5 (Project) dropped column 'label', which this streaming read reads;");
    }
  }

  /** A column added that the read does not read changes nothing it emits. */
  @Test
  void aColumnAddedLaterThatTheReadDoesNotReadGoesOn() throws Exception {
    try (PlannedRead read = read(streaming().startFromLatest())) {
      read.start();
      addNullableColumn("extra"); // 4
      TestTables.append(
          table.uri(),
          WITH_EXTRA,
          List.of(GenericRowData.of(30L, StringData.fromString("name-30"), 7L)),
          10); // 5
      assertThat(read.next()).containsExactly("+I[30, name-30]");
      assertThat(read.failure()).isNull();
    }
  }

  private LanceSourceBuilder streaming() {
    return table.source().streaming().batchSize(8);
  }

  private static ChangePlanner planner(LanceSourceBuilder source) {
    return new ChangePlanner(SourceScans.of(source));
  }

  private static PlannedRead read(LanceSourceBuilder source) {
    return new PlannedRead(SourceScans.of(source));
  }

  private static LanceScan withRowType(LanceScan scan, RowType rowType) {
    return new LanceScan(
        scan.dataset(),
        scan.version(),
        scan.tag(),
        rowType,
        scan.filter(),
        scan.limit(),
        scan.batchSize(),
        scan.streaming());
  }

  private static final RowType ID_ONLY =
      new RowType(List.of(new RowType.RowField("id", new BigIntType(false))));

  private static final RowType WITH_EXTRA =
      new RowType(
          List.of(
              TestRows.ROW_TYPE.getFields().get(0),
              TestRows.ROW_TYPE.getFields().get(1),
              new RowType.RowField("extra", new BigIntType())));

  /** Another client changes the table through plain Lance. */
  private void alter(Consumer<Dataset> change) {
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = new TableRef(table.uri(), Map.of()).open(allocator)) {
      change.accept(dataset);
    }
  }

  private void addNullableColumn(String name) {
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = new TableRef(table.uri(), Map.of()).open(allocator)) {
      dataset.addColumns(
          List.of(new Field(name, FieldType.nullable(new ArrowType.Int(64, true)), null)));
    }
  }

  private void cleanUpBefore(long version) {
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = new TableRef(table.uri(), Map.of()).open(allocator)) {
      dataset.cleanupWithPolicy(
          CleanupPolicy.builder()
              .withBeforeVersion(version)
              .withErrorIfTaggedOldVersions(false)
              .build());
    }
  }

  private void assertPermanent(RuntimeException failure, String message) {
    assertThat(failure)
        .isInstanceOf(PermanentDatasetException.class)
        .hasMessageStartingWith("Lance table '" + table.uri() + "': " + message);
  }
}
