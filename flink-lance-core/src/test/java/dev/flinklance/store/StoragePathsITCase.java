package dev.flinklance.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flinklance.access.TableRef;
import dev.flinklance.testing.S3TestServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.lance.Dataset;
import org.lance.WriteParams;

/**
 * Where Lance itself puts a table's files, for URIs with characters a URL parser treats specially:
 * {@link StoragePaths} must name the same place, or side files land where Lance never looks.
 */
class StoragePathsITCase {
  @RegisterExtension static final S3TestServer S3 = new S3TestServer();

  private static final Schema SCHEMA =
      new Schema(List.of(Field.nullable("id", new ArrowType.Int(64, true))));

  @TempDir Path dir;

  private static void create(String uri, Map<String, String> storageOptions) {
    try (BufferAllocator allocator = new RootAllocator();
        Dataset ignored =
            Dataset.create(
                allocator,
                uri,
                SCHEMA,
                new WriteParams.Builder().withStorageOptions(storageOptions).build())) {
      // created
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"plain", "a b", "ü名 🙂", "%41", "[x] {y} `z` <w>", "'q' \"r\" +;=@,|^~"})
  void fileUrisAndPlainPaths(String name) {
    String fileUri = "file://" + dir.resolve("f") + "/" + name + ".lance";
    create(fileUri, Map.of());
    Path local = StoragePaths.localPath(fileUri);
    assertThat(local.resolve("_versions")).as(fileUri).isDirectory();

    Path plain = dir.resolve("p").resolve(name + ".lance");
    create(plain.toString(), Map.of());
    assertThat(StoragePaths.localPath(plain.toString())).isEqualTo(plain);
    assertThat(plain.resolve("_versions")).isDirectory();
  }

  @ParameterizedTest
  @ValueSource(strings = {"plain", "a b", "ü名 🙂", "%41", "[x] {y} `z` <w>", "'q' \"r\" +;=@,|^~"})
  void objectStoreKeys(String name) {
    String uri = S3.newUri("keys") + "/" + name + ".lance";
    create(uri, S3.storageOptions());
    StoragePaths.ObjectKey key = StoragePaths.objectKey(uri);
    assertThat(key.bucket()).isEqualTo(S3TestServer.BUCKET);
    assertThat(S3.keys(uri))
        .as(uri)
        .isNotEmpty()
        .allSatisfy(k -> assertThat(k).startsWith(key.key() + "/_"));
  }

  @Test
  void aUriThatLanceWouldCutIsRefused() {
    for (String uri : List.of("file:///data/#t.lance", "s3://b/t.lance?x", "gs://b/a#b")) {
      assertThatThrownBy(() -> new TableRef(uri, Map.of()))
          .as(uri)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("must not contain '#'");
    }
    assertThat(new TableRef("/data/#t.lance", Map.of()).uri()).isEqualTo("/data/#t.lance");
    assertThat(new TableRef("s3+ddb://b/t.lance?ddbTableName=x", Map.of()).uri())
        .endsWith("?ddbTableName=x");
    assertThat(Files.exists(dir.resolve("t.lance"))).isFalse();
  }
}
