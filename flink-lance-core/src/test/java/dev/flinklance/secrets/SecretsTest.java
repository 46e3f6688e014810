package dev.flinklance.secrets;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flinklance.access.TableRef;
import dev.flinklance.errors.LanceDatasetException;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SecretsTest {
  private static final String SECRET = "Secrets-Test-7b2e9f";

  @Test
  void credentialKeysAreSensitiveAndKeyIdsAreNot() {
    for (String key :
        new String[] {
          "aws_secret_access_key",
          "secret_access_key",
          "aws_session_token",
          "azure_storage_account_key",
          "azure_storage_access_key",
          "azure_client_secret",
          "azure_storage_sas_key",
          "azure_storage_token",
          "google_service_account_key",
          "AWS_SECRET_ACCESS_KEY"
        }) {
      assertThat(Secrets.isSensitive(key)).as(key).isTrue();
    }
    for (String key :
        new String[] {"aws_access_key_id", "aws_region", "aws_endpoint", "timeout", "allow_http"}) {
      assertThat(Secrets.isSensitive(key)).as(key).isFalse();
    }
  }

  @Test
  void urisLoseTheirPasswordAndSignedQueryParameters() {
    assertThat(Secrets.redactUri("s3://AKID:" + SECRET + "@bucket/t"))
        .isEqualTo("s3://AKID:******@bucket/t");
    assertThat(Secrets.redactUri("az://c/t?sv=2022&sig=" + SECRET + "&se=2030"))
        .isEqualTo("az://c/t?sv=2022&sig=******&se=2030");
    assertThat(Secrets.redactUri("s3+ddb://b/t?ddbTableName=d"))
        .isEqualTo("s3+ddb://b/t?ddbTableName=d");
    assertThat(Secrets.redactUri("http://127.0.0.1:9000/b?list-type=2&prefix=t%2F"))
        .isEqualTo("http://127.0.0.1:9000/b?list-type=2&prefix=t%2F");
  }

  @Test
  void exceptionsOfATableNeverCarryItsSecretsNorTheirCauses() {
    TableRef table =
        new TableRef("s3://b/t", Map.of("aws_secret_access_key", SECRET, "aws_region", "x"));
    IOException lanceError =
        new IOException("failed to parse \"" + SECRET + "\"", new RuntimeException(SECRET));
    lanceError.addSuppressed(new IllegalStateException("also " + SECRET));

    LanceDatasetException error = new LanceDatasetException(table.uri(), "cannot open", lanceError);

    assertThat(error.getMessage())
        .isEqualTo("Lance table 's3://b/t': cannot open: failed to parse \"******\"");
    assertThat(stackTrace(error))
        .doesNotContain(SECRET)
        .contains("java.io.IOException: failed to parse \"******\"")
        .contains(getClass().getName()); // the original stack traces are kept
  }

  @Test
  void aSecretAnExceptionShowsOnlyInItsStackTraceLineIsMaskedToo() {
    Secrets.remember(Map.of("header.Authorization", "Bearer " + SECRET));
    RuntimeException error =
        new org.lance.namespace.errors.TableNotFoundException(
            "Table not found", "header Bearer " + SECRET, "/t");

    assertThat(stackTrace(Secrets.scrub(error)))
        .doesNotContain(SECRET)
        .contains("TableNotFoundException")
        .contains("Table not found");
  }

  @Test
  void cleanCausesAreKeptAsTheyAre() {
    IOException clean = new IOException("Server returned 503");
    assertThat(new LanceDatasetException("s3://b/t", "cannot open", clean).getCause())
        .isSameAs(clean);
  }

  @Test
  void aTableNamesItselfWithoutTheCredentialsInItsUri() {
    assertThat(new TableRef("s3://AKID:" + SECRET + "@b/t", Map.of()).toString())
        .isEqualTo("s3://AKID:******@b/t");
  }

  private static String stackTrace(Throwable error) {
    StringWriter text = new StringWriter();
    error.printStackTrace(new PrintWriter(text));
    return text.toString();
  }
}
