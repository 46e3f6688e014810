package dev.flinklance.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flinklance.access.TableRef;
import dev.flinklance.testing.OptionsDocs;
import java.io.IOException;
import java.nio.file.Files;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ObjectStoreDefaultsTest {

  @Test
  void objectStoreTablesGetTheTimeoutDefaults() {
    for (String uri :
        new String[] {"s3://b/t", "gs://b/t", "az://c/t", "s3+ddb://b/t?ddbTableName=x"}) {
      assertThat(new TableRef(uri, Map.of("aws_region", "eu-west-1")).storageOptions())
          .as(uri)
          .containsEntry("aws_region", "eu-west-1")
          .containsEntry("timeout", "10s")
          .containsEntry("connect_timeout", "5s")
          .containsEntry("client_retry_timeout", "5");
    }
  }

  @Test
  void userValuesWinInAnyCase() {
    Map<String, String> options =
        new TableRef("s3://b/t", Map.of("timeout", "120s", "CLIENT_RETRY_TIMEOUT", "60"))
            .storageOptions();

    assertThat(options)
        .containsEntry("timeout", "120s")
        .containsEntry("CLIENT_RETRY_TIMEOUT", "60")
        .doesNotContainKey("client_retry_timeout")
        .containsEntry("connect_timeout", "5s");
  }

  @Test
  void optionsPageListsEveryDefault() throws IOException {
    String page = Files.readString(OptionsDocs.optionsPage());
    ObjectStoreDefaults.DEFAULTS.forEach(
        (key, value) -> assertThat(page).contains("| `storage." + key + "` | `" + value + "` |"));
  }

  @Test
  void localTablesKeepTheirOptions() {
    for (String uri : new String[] {"/tmp/t", "relative/t", "file:///tmp/t", "memory://t"}) {
      assertThat(new TableRef(uri, Map.of()).storageOptions()).as(uri).isEmpty();
    }
  }
}
