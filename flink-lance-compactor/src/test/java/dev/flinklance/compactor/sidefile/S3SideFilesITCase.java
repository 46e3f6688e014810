package dev.flinklance.compactor.sidefile;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flinklance.access.TableRef;
import dev.flinklance.testing.S3TestServer;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Side files on the S3 test server: more than one listing page, and nothing but side files. */
class S3SideFilesITCase {
  @RegisterExtension static final S3TestServer S3 = new S3TestServer();

  @Test
  void listsEverySideFileAcrossPagesAndNothingElse() throws Exception {
    String table = S3.newUri("pages");
    int count = 1_005; // S3 lists at most 1,000 keys per page
    try (SideFiles files = SideFiles.of(new TableRef(table, S3.storageOptions())).orElseThrow();
        SideFiles neighbour =
            SideFiles.of(new TableRef(table + "-x", S3.storageOptions())).orElseThrow()) {
      for (int i = 0; i < count; i++) {
        files.write(String.format("%s%04d.bin", SideFiles.PREFIX, i), new byte[] {(byte) i});
      }
      neighbour.write(SideFiles.PREFIX + "other.bin", new byte[] {1});
      files.write("_versions-not-a-side-file", new byte[] {1});

      List<String> names = files.list().stream().map(SideFiles.Listed::name).sorted().toList();

      assertThat(names)
          .containsExactlyElementsOf(
              IntStream.range(0, count)
                  .mapToObj(i -> String.format("%s%04d.bin", SideFiles.PREFIX, i))
                  .toList());
      assertThat(files.read(SideFiles.PREFIX + "0007.bin", 0, 1)).containsExactly(7);
    }
  }
}
