package dev.flinklance.commit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flinklance.commit.VersionChange.Kind;
import dev.flinklance.errors.PermanentDatasetException;
import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.TestFragments;
import dev.flinklance.testing.TestTables;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.CommitBuilder;
import org.lance.Dataset;
import org.lance.Transaction;
import org.lance.cleanup.CleanupPolicy;
import org.lance.compaction.CompactionOptions;
import org.lance.operation.Overwrite;
import org.lance.schema.SqlExpressions;

/** What each version of a table did to its rows, for Lance's own operations. */
class VersionChangesTest {
  private static final List<String> COLUMNS = List.of("id", "name");

  @TempDir Path dir;

  private String table;

  private void createWithTwoFragments() {
    table = dir.resolve("t").toString();
    TestFragments.createTable(table); // version 1
    LanceTestTables.appendFragments(table, TestFragments.write(table, 0, 1, 2)); // 2: fragment 0
    LanceTestTables.appendFragments(table, TestFragments.write(table, 3, 4, 5)); // 3: fragment 1
  }

  private List<VersionChange> changes(long after, List<String> columns) {
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = Dataset.open().allocator(allocator).uri(table).build()) {
      return VersionChanges.between(dataset, after, dataset.version(), columns);
    }
  }

  private void onTable(LanceChange change) {
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = Dataset.open().allocator(allocator).uri(table).build()) {
      change.apply(dataset);
    }
  }

  private interface LanceChange {
    void apply(Dataset dataset);
  }

  @Test
  void appendsAddFragments() {
    createWithTwoFragments();
    List<VersionChange> changes = changes(0, COLUMNS);
    assertThat(changes).extracting(VersionChange::version).containsExactly(1L, 2L, 3L);
    // the creation replaced nothing: it only adds (here no) rows
    assertThat(changes.get(0).kind()).isEqualTo(Kind.ROWS);
    assertThat(changes.get(0).changesRows()).isFalse();
    assertThat(changes.get(0).schemaChanged()).isTrue();
    assertThat(changes.get(1).addedFragments()).containsExactly(0);
    assertThat(changes.get(2).addedFragments()).containsExactly(1);
    assertThat(changes.get(2).removesRows()).isFalse();
    assertThat(changes.get(2).schemaChanged()).isFalse();
    assertThat(changes.get(2).operation()).isEqualTo("Append");
  }

  @Test
  void deletesRemoveRowsOrWholeFragments() {
    createWithTwoFragments();
    onTable(dataset -> dataset.delete("id = 1 OR id = 4")); // 4: rows of both fragments
    onTable(dataset -> dataset.delete("id >= 3")); // 5: the rest of fragment 1
    List<VersionChange> changes = changes(3, COLUMNS);
    assertThat(changes.get(0).deletedRowsFragments()).containsExactly(0, 1);
    assertThat(changes.get(0).removedFragments()).isEmpty();
    assertThat(changes.get(0).operation()).isEqualTo("Delete");
    assertThat(changes.get(1).removedFragments()).containsExactly(1);
    assertThat(changes.get(1).deletedRowsFragments()).isEmpty();
    assertThat(changes.get(1).removesRows()).isTrue();
  }

  @Test
  void aCompactionIsARewriteAndAnOverwriteAReplacement() {
    createWithTwoFragments();
    onTable(dataset -> dataset.compact(CompactionOptions.builder().build()));
    long compacted = LanceTestTables.latestVersion(table);
    LanceTestTables.appendFragments(table, TestFragments.write(table, 9));
    onTable(this::overwrite);
    List<VersionChange> changes = changes(3, COLUMNS);
    VersionChange rewrite = changes.get((int) (compacted - 4));
    assertThat(rewrite.kind()).isEqualTo(Kind.REWRITE);
    assertThat(rewrite.changesRows()).isFalse();
    VersionChange replace = changes.get(changes.size() - 1);
    assertThat(replace.kind()).isEqualTo(Kind.REPLACE);
    assertThat(replace.operation()).isEqualTo("Overwrite");
    assertThat(replace.removedFragments()).hasSize(2); // the compacted one, the appended one
    assertThat(replace.addedFragments()).hasSize(1);
  }

  /**
   * Compacting a table with a BTree index: lance-core 7.0.0 cannot read that Rewrite's transaction
   * back (its rewritten indexes). It is a rewrite all the same, also when it drops the rows an
   * earlier version deleted; the versions around it read as usual.
   */
  @Test
  void aCompactionOfAnIndexedTableIsARewrite() {
    createWithTwoFragments();
    TestTables.createScalarIndex(table, "id"); // 4
    onTable(dataset -> dataset.delete("id = 1")); // 5: fragment 0 gains a deletion file
    onTable(dataset -> dataset.compact(CompactionOptions.builder().build())); // 6, 7
    LanceTestTables.appendFragments(table, TestFragments.write(table, 9)); // 8
    assertThat(LanceTestTables.commits(table))
        .as("the compaction's transaction cannot be read")
        .extracting(LanceTestTables.Commit::operation)
        .endsWith("ReserveFragments", LanceTestTables.UNREADABLE, "Append");

    List<VersionChange> changes = changes(4, COLUMNS);
    assertThat(changes).extracting(VersionChange::version).containsExactly(5L, 6L, 7L, 8L);
    assertThat(changes.get(0).deletedRowsFragments()).containsExactly(0);
    assertThat(changes.get(1).changesRows()).isFalse();
    VersionChange rewrite = changes.get(2);
    assertThat(rewrite.kind()).isEqualTo(Kind.REWRITE);
    assertThat(rewrite.operation()).isEqualTo("Rewrite");
    assertThat(rewrite.changesRows()).isFalse();
    assertThat(changes.get(3).addedFragments()).hasSize(1);
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = Dataset.open().allocator(allocator).uri(table).build()) {
      assertThat(VersionChanges.of(dataset, 7, COLUMNS)).isEqualTo(rewrite);
    }
  }

  private void overwrite(Dataset dataset) {
    try (Transaction overwrite =
            new Transaction.Builder()
                .readVersion(dataset.version())
                .operation(
                    Overwrite.builder()
                        .fragments(TestFragments.write(table, 7))
                        .schema(TestFragments.SCHEMA)
                        .build())
                .build();
        Dataset ignored = new CommitBuilder(dataset).execute(overwrite)) {
      // replaced
    }
  }

  /** A column added writes new data files: a change for its readers, none for the others. */
  @Test
  void anAddedColumnChangesOnlyTheRowsOfItsReaders() {
    createWithTwoFragments();
    onTable(
        dataset ->
            dataset.addColumns(
                new SqlExpressions.Builder().withExpression("twice", "id * 2").build(),
                Optional.empty()));
    VersionChange added = changes(3, COLUMNS).get(0);
    assertThat(added.schemaChanged()).isTrue();
    assertThat(added.changesRows()).isFalse();
    VersionChange forAll = changes(3, null).get(0);
    assertThat(forAll.removedFragments()).containsExactly(0, 1);
    assertThat(forAll.addedFragments()).containsExactly(0, 1);
  }

  @Test
  void aCleanedUpVersionIsAPermanentErrorNamingIt() {
    createWithTwoFragments();
    onTable(dataset -> dataset.delete("id = 0")); // 4
    onTable(
        dataset -> dataset.cleanupWithPolicy(CleanupPolicy.builder().withBeforeVersion(4).build()));
    assertThatThrownBy(() -> changes(2, COLUMNS))
        .isInstanceOf(PermanentDatasetException.class)
        .hasMessageContaining(
            "Lance table '"
                + table
                + "': cannot read what the versions after 2 changed: version 2 no longer exists"
                + " (cleaned up?)");
    onTable(dataset -> dataset.delete("id = 2")); // 5
    assertThat(changes(4, COLUMNS))
        .singleElement()
        .satisfies(c -> assertThat(c.version()).isEqualTo(5));
  }
}
