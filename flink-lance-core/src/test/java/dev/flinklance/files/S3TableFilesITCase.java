package dev.flinklance.files;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flinklance.access.TableRef;
import dev.flinklance.testing.S3TestServer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Files beside a table on the S3 test server. */
class S3TableFilesITCase {
  @RegisterExtension static final S3TestServer S3 = new S3TestServer();

  @Test
  void listsEveryFileOfAPrefixAcrossPagesAndNothingElse() throws Exception {
    String table = S3.newUri("pages");
    int count = 1_005; // S3 lists at most 1,000 keys per page
    try (TableFiles files = TableFiles.of(new TableRef(table, S3.storageOptions())).orElseThrow();
        TableFiles neighbour =
            TableFiles.of(new TableRef(table + "-x", S3.storageOptions())).orElseThrow()) {
      for (int i = 0; i < count; i++) {
        files.write(String.format("_rowids-%04d.bin", i), new byte[] {(byte) i});
      }
      neighbour.write("_rowids-other.bin", new byte[] {1});
      files.write("_versions-not-a-side-file", new byte[] {1});
      files.write("_rowids-dir/below.bin", new byte[] {1});

      List<String> names =
          files.list("_rowids-").stream().map(TableFiles.Listed::name).sorted().toList();

      assertThat(names)
          .containsExactlyElementsOf(
              IntStream.range(0, count)
                  .mapToObj(i -> String.format("_rowids-%04d.bin", i))
                  .toList());
      assertThat(files.read("_rowids-0007.bin", 0, 1)).containsExactly(7);
    }
  }

  @Test
  void replacesFilesInADirectoryAndListsIt() throws Exception {
    String table = S3.newUri("replace");
    try (TableFiles files = TableFiles.of(new TableRef(table, S3.storageOptions())).orElseThrow()) {
      assertThat(files.read("_consumers/a.json")).isEmpty();
      assertThat(files.list("_consumers/")).isEmpty();

      files.replace("_consumers/a.json", bytes("first"));
      files.replace("_consumers/a.json", bytes("second"));
      files.replace("_consumers/b.json", bytes("other"));

      assertThat(files.read("_consumers/a.json")).hasValue(bytes("second"));
      assertThat(files.list("_consumers/").stream().map(TableFiles.Listed::name).sorted())
          .containsExactly("_consumers/a.json", "_consumers/b.json");
      files.delete("_consumers/a.json");
      assertThat(files.read("_consumers/a.json")).isEmpty();
    }
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
