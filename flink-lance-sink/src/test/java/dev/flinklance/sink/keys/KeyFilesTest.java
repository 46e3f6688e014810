package dev.flinklance.sink.keys;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flinklance.access.TableRef;
import dev.flinklance.errors.PermanentDatasetException;
import dev.flinklance.key.PrimaryKey;
import dev.flinklance.key.RowKey;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.RowType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Key files on local disk: inline or in a file by size, read back, deleted, orphans removed. */
class KeyFilesTest {
  @TempDir Path table;

  private KeyFiles keyFiles() {
    return new KeyFiles(new TableRef(table.toString(), Map.of()));
  }

  private static final PrimaryKey KEY =
      PrimaryKey.of(
          (RowType)
              DataTypes.ROW(
                      DataTypes.FIELD("id", DataTypes.BIGINT()),
                      DataTypes.FIELD("name", DataTypes.STRING()))
                  .getLogicalType(),
          List.of("id", "name"),
          "/t");

  private static List<RowKey> keys(int count) {
    return LongStream.range(0, count)
        .mapToObj(k -> KEY.keyOf(GenericRowData.of(k, StringData.fromString("k" + k))))
        .toList();
  }

  @Test
  void fewKeysStayInlineManyGoToAFileThatReadsBack() throws Exception {
    try (KeyFiles files = keyFiles()) {
      ChangedKeys few = files.hold(keys(10), 1024);
      assertThat(few.inline()).isEqualTo(keys(10));
      assertThat(few.files()).isEmpty();

      ChangedKeys many = files.hold(keys(1000), 1024);
      assertThat(many.inline()).isEmpty();
      assertThat(many.files()).hasSize(1);
      assertThat(many.count()).isEqualTo(1000);
      assertThat(many.files().get(0).name()).startsWith("_keys/").endsWith(".keys");
      assertThat(files.read(many)).isEqualTo(keys(1000));
      assertThat(files.read(ChangedKeys.concat(List.of(few, many))))
          .containsExactlyElementsOf(
              java.util.stream.Stream.concat(keys(10).stream(), keys(1000).stream()).toList());

      files.delete(many);
      assertThat(table.resolve(many.files().get(0).name())).doesNotExist();
      files.delete(many); // a replay's delete of what is gone is no error

      Path elsewhere = Files.writeString(table.resolve("data.lance"), "not a key file");
      files.delete(new ChangedKeys(List.of(), List.of(new ChangedKeys.KeyFile("data.lance", 1))));
      assertThat(elsewhere).as("only names the sink gives are deleted").exists();
    }
  }

  @Test
  void keysThatCannotBeWrittenToAFileStayInline() throws Exception {
    Files.writeString(table.resolve("_keys"), "a file where the directory would go");
    try (KeyFiles files = keyFiles()) {
      assertThat(files.hold(keys(1000), 0)).isEqualTo(ChangedKeys.inline(keys(1000)));
    }
  }

  @Test
  void noKeysAreNone() {
    try (KeyFiles files = keyFiles()) {
      assertThat(files.hold(List.of(), 0)).isEqualTo(ChangedKeys.NONE);
      assertThat(table.resolve("_keys")).doesNotExist();
    }
  }

  @Test
  void aMissingOrForeignKeyFileFailsNamingIt() throws Exception {
    try (KeyFiles files = keyFiles()) {
      ChangedKeys held = files.hold(keys(100), 0);
      String name = held.files().get(0).name();
      ChangedKeys miscounted =
          new ChangedKeys(List.of(), List.of(new ChangedKeys.KeyFile(name, 7)));
      assertThatThrownBy(() -> files.read(miscounted))
          .isInstanceOf(PermanentDatasetException.class)
          .hasMessageContaining("the key file " + name + " holds 100 keys, the commit names 7");

      Files.write(table.resolve(name), new byte[] {1, 2, 3});
      assertThatThrownBy(() -> files.read(held))
          .isInstanceOf(PermanentDatasetException.class)
          .hasMessageContaining("the key file " + name + " is not one this sink wrote");

      Files.delete(table.resolve(name));
      assertThatThrownBy(() -> files.read(held))
          .isInstanceOf(PermanentDatasetException.class)
          .hasMessageContaining("Lance table '" + table + "'")
          .hasMessageContaining(
              "the key file " + name + " of the commit is gone (100 changed keys");
    }
  }

  @Test
  void orphansAreOnlyOldKeyFiles() throws Exception {
    try (KeyFiles files = keyFiles()) {
      String young = files.hold(keys(100), 0).files().get(0).name();
      String old = files.hold(keys(100), 0).files().get(0).name();
      Path notOurs = Files.writeString(table.resolve("_keys/notes.txt"), "mine");
      Path notOursEither = Files.writeString(table.resolve("_keys/mine.keys"), "mine");
      Path elsewhere = Files.writeString(table.resolve("old.keys"), "mine");
      FileTime longAgo = FileTime.from(Instant.now().minus(KeyFiles.ORPHAN_AGE).minusSeconds(60));
      for (Path path : List.of(table.resolve(old), notOurs, notOursEither, elsewhere)) {
        Files.setLastModifiedTime(path, longAgo);
      }

      assertThat(files.deleteOrphans(System.currentTimeMillis())).isEqualTo(1);
      assertThat(table.resolve(old)).doesNotExist();
      assertThat(table.resolve(young)).exists();
      assertThat(notOurs).exists();
      assertThat(notOursEither).as("not a name the sink gives").exists();
      assertThat(elsewhere).exists();
    }
  }
}
