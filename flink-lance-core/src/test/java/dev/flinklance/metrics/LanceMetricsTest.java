package dev.flinklance.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flinklance.access.LanceDatasetOptions.ConditionalPutCheck;
import dev.flinklance.access.TableRef;
import dev.flinklance.namespace.NamespaceConnection;
import dev.flinklance.namespace.NamespaceTable;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The {@code table} key of the connector's metrics: a stable name that carries no credential. */
class LanceMetricsTest {

  @Test
  void aPathTableIsNamedByItsLocationWithoutUserInfoQueryOrTrailingSlash() {
    assertThat(name("s3+ddb://AKIDEXAMPLE:wJalrXUtnFEMI@bucket/db/t.lance/?ddbTableName=commits"))
        .isEqualTo("s3+ddb://bucket/db/t.lance");
    assertThat(name("gs://someone@bucket/t.lance")).isEqualTo("gs://bucket/t.lance");
    assertThat(name("s3://bucket/a@b/t.lance")).isEqualTo("s3://bucket/a@b/t.lance");
    assertThat(name("file:///data/t.lance")).isEqualTo("file:///data/t.lance");
    assertThat(LanceMetrics.tableName(TableRef.at("relative/t.lance", Map.of())))
        .isEqualTo(Path.of("relative/t.lance").toAbsolutePath().toString());
  }

  @Test
  void aCredentialInTheLocationIsMasked() {
    TableRef table =
        new TableRef(
            "s3://bucket/sk-secret-9f8e7d/t.lance",
            Map.of("aws_secret_access_key", "sk-secret-9f8e7d", "aws_region", "us-east-1"));
    assertThat(LanceMetrics.tableName(table))
        .startsWith("s3://bucket/")
        .endsWith("/t.lance")
        .doesNotContain("sk-secret-9f8e7d");
  }

  @Test
  void aNamespaceTableIsNamedByItsIdWhereverItLives() {
    NamespaceConnection namespace =
        new NamespaceConnection(
            "rest",
            Map.of("uri", "http://user:pass@127.0.0.1:1", "header.Authorization", "Bearer tok-1"),
            Duration.ofSeconds(1));
    TableRef table =
        new TableRef(
            "s3://bucket/generated-location-1234/users.lance",
            Map.of("aws_region", "us-east-1"),
            ConditionalPutCheck.FAIL,
            new NamespaceTable(namespace, List.of("db", "users")));
    assertThat(LanceMetrics.tableName(table)).isEqualTo("db.users");
  }

  private static String name(String uri) {
    return LanceMetrics.tableName(new TableRef(uri, Map.of("aws_region", "us-east-1")));
  }
}
