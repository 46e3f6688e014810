package dev.flinklance.namespace;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flinklance.access.LanceDatasetOptions;
import dev.flinklance.access.TableRef;
import dev.flinklance.secrets.Secrets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.flink.configuration.Configuration;
import org.junit.jupiter.api.Test;

/** A table's namespace survives the trip through a job's options, and its secrets stay masked. */
class NamespaceTableTest {

  @Test
  void theNamespaceAndTheTableIdSurviveTheOptions() {
    NamespaceConnection namespace =
        new NamespaceConnection(
            "rest",
            Map.of("uri", "http://127.0.0.1:1", "header.Authorization", "Bearer abc-123-token"),
            Duration.ofSeconds(7));
    NamespaceTable table = new NamespaceTable(namespace, List.of("a.b", "x%y", "ü名", "t"));
    TableRef dataset =
        new TableRef(
            "s3://bucket/t.lance",
            Map.of("aws_region", "us-east-1"),
            LanceDatasetOptions.ConditionalPutCheck.FAIL,
            table);

    TableRef back =
        LanceDatasetOptions.dataset(
            dataset.uri(), Configuration.fromMap(LanceDatasetOptions.toOptions(dataset)));

    assertThat(back.namespaceTable()).contains(table);
    assertThat(back.namespaceTable().orElseThrow().namespace().timeout())
        .isEqualTo(Duration.ofSeconds(7));
    assertThat(back.configuredStorageOptions()).containsEntry("aws_region", "us-east-1");
    assertThat(LanceDatasetOptions.dataset("/tmp/t.lance", new Configuration()).namespaceTable())
        .isEmpty();
  }

  @Test
  void headerValuesAndTheirTokensAreSecrets() {
    new NamespaceConnection(
        "rest",
        Map.of("uri", "http://127.0.0.1:1", "header.x-api-token", "Bearer tok-987654"),
        Duration.ofSeconds(1));
    assertThat(Secrets.isSensitive("header.Authorization")).isTrue();
    assertThat(Secrets.isSensitive("headers.X-Custom")).isTrue();
    assertThat(Secrets.isSensitive("lance-namespace.property.header.Authorization")).isTrue();
    assertThat(Secrets.isSensitive("uri")).isFalse();
    assertThat(Secrets.redact("sent Bearer tok-987654 and tok-987654"))
        .doesNotContain("tok-987654");
  }
}
