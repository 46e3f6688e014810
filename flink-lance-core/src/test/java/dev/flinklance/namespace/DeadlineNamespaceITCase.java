package dev.flinklance.namespace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flinklance.secrets.Secrets;
import dev.flinklance.testing.HeaderEchoingNamespace;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.namespace.errors.UnauthenticatedException;
import org.lance.namespace.model.DescribeTableRequest;
import org.lance.namespace.model.ListNamespacesRequest;

/**
 * What a namespace answers reaches the caller as the same error, without the connection's secrets.
 */
class DeadlineNamespaceITCase {
  @TempDir Path dir;

  @Test
  void anAnswerThatEchoesTheRequestsHeadersKeepsItsTypeAndLosesTheToken() throws Exception {
    String token = "deadline-token-" + System.nanoTime();
    try (HeaderEchoingNamespace server =
        new HeaderEchoingNamespace("file://" + dir.resolve("root"))) {
      NamespaceConnection connection =
          new NamespaceConnection(
              "rest",
              Map.of("uri", server.uri(), "header.Authorization", "Bearer " + token),
              Duration.ofSeconds(20));
      connection.client().listNamespaces(new ListNamespacesRequest().id(List.of()));

      server.failAt(server.requests() + 1);
      assertThatThrownBy(
              () ->
                  connection
                      .client()
                      .describeTable(new DescribeTableRequest().id(List.of("db", "t"))))
          .isInstanceOf(UnauthenticatedException.class)
          .hasMessageContaining("unauthorized: ")
          .hasMessageContaining(Secrets.MASK)
          .satisfies(e -> assertThat(stackTrace(e)).doesNotContain(token));
      assertThat(server.failed()).contains("/v1/table/db%24t/describe");
    }
  }

  private static String stackTrace(Throwable error) {
    StringWriter text = new StringWriter();
    error.printStackTrace(new PrintWriter(text));
    return text.toString();
  }
}
