package dev.flinklance.consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flinklance.access.TableRef;
import dev.flinklance.files.TableFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Registrations as files beside a table on local disk; S3 in {@code S3TableFilesITCase}. */
class ConsumersTest {
  @TempDir Path dir;

  private TableFiles files() {
    return TableFiles.of(new TableRef(dir.resolve("t.lance").toString(), Map.of())).orElseThrow();
  }

  @Test
  void registrationsAreReplacedReadBackAndListed() throws IOException {
    try (TableFiles files = files()) {
      Consumers consumers = new Consumers(files);
      assertThat(consumers.list()).isEmpty();
      consumers.register(new ConsumerRegistration("a", 3, 1_000, 60_000));
      consumers.register(new ConsumerRegistration("a", 5, 2_000, 60_000));
      consumers.register(new ConsumerRegistration("b.2", 4, 1_500, 10));

      assertThat(consumers.read("a")).hasValue(new ConsumerRegistration("a", 5, 2_000, 60_000));
      assertThat(consumers.list())
          .containsExactlyInAnyOrder(
              new ConsumerRegistration("a", 5, 2_000, 60_000),
              new ConsumerRegistration("b.2", 4, 1_500, 10));
      assertThat(dir.resolve("t.lance/_consumers/a.json")).exists();
      try (var listed = Files.list(dir.resolve("t.lance/_consumers"))) {
        assertThat(listed.map(p -> p.getFileName().toString()))
            .as("no file left from the replacements")
            .containsExactlyInAnyOrder("a.json", "b.2.json");
      }
    }
  }

  @Test
  void aRegistrationExpiresItsExpirationTimeAfterItsHeartbeat() {
    ConsumerRegistration registration = new ConsumerRegistration("a", 3, 1_000, 500);
    assertThat(registration.expired(1_499)).isFalse();
    assertThat(registration.expired(1_500)).isTrue();
  }

  @Test
  void onlyARegistrationStillExpiredWhenReadAgainIsDeleted() throws IOException {
    try (TableFiles files = files()) {
      Consumers consumers = new Consumers(files);
      consumers.register(new ConsumerRegistration("a", 3, 1_000, 500));

      assertThat(consumers.deleteIfExpired("a", 1_200)).isFalse();
      // the read wrote it again since a cleanup listed it as expired
      consumers.register(new ConsumerRegistration("a", 4, 2_000, 500));
      assertThat(consumers.deleteIfExpired("a", 2_100)).isFalse();
      assertThat(consumers.read("a")).isPresent();

      assertThat(consumers.deleteIfExpired("a", 2_500)).isTrue();
      assertThat(consumers.read("a")).isEmpty();
      assertThat(consumers.deleteIfExpired("gone", 9_000)).isFalse();
    }
  }

  @Test
  void aFileThatIsNoRegistrationFailsTheListingNamingIt() throws IOException {
    try (TableFiles files = files()) {
      files.replace("_consumers/x.json", "{not json".getBytes(StandardCharsets.UTF_8));
      assertThatThrownBy(() -> new Consumers(files).list())
          .isInstanceOf(IOException.class)
          .hasMessageContaining("_consumers/x.json");
    }
  }

  @Test
  void idsThatNameAFileAreTheOnlyOnesAccepted() {
    assertThat(Consumers.invalidId("reader-1.a_b")).isEmpty();
    assertThat(Consumers.invalidId("../x")).isPresent();
    assertThat(Consumers.invalidId("a/b")).isPresent();
    assertThat(Consumers.invalidId("")).isPresent();
    assertThat(Consumers.invalidId(".hidden")).isPresent();
    assertThat(Consumers.invalidId("x".repeat(129))).isPresent();
  }
}
