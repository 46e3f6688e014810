package dev.flinklance.testing;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.lance.namespace.RestAdapter;

/**
 * A Lance REST namespace on 127.0.0.1 whose error answers echo the request's headers, as some
 * services' do ({@code "unauthorized: Bearer <token>"}): lance-core's {@code RestAdapter} over a
 * directory namespace, behind a proxy that forwards every request, except those {@link #failAt} or
 * {@link #failFrom} pick, which it answers with an Unauthenticated error whose message, detail and
 * instance hold every header of that request.
 */
public final class HeaderEchoingNamespace implements AutoCloseable {
  /** Headers the JDK's HTTP client sets itself; compression stays off between the two servers. */
  private static final Set<String> NOT_FORWARDED =
      Set.of("connection", "content-length", "expect", "host", "upgrade", "accept-encoding");

  private final RestAdapter backend;
  private final HttpServer proxy;
  private final HttpClient client = HttpClient.newHttpClient();
  private final AtomicInteger requests = new AtomicInteger();
  private int failingFrom = -1;
  private int failingTo = -1;
  private volatile String failed;

  /**
   * @param root the directory namespace's root
   */
  public HeaderEchoingNamespace(String root) throws IOException {
    backend = new RestAdapter("dir", Map.of("root", root), "127.0.0.1", 0);
    backend.start();
    proxy = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    proxy.createContext("/", this::handle);
    proxy.start();
  }

  /** {@code http://127.0.0.1:PORT} of the proxy, for a client's {@code uri}. */
  public String uri() {
    return "http://127.0.0.1:" + proxy.getAddress().getPort();
  }

  /** The requests received so far. */
  public int requests() {
    return requests.get();
  }

  /**
   * Answers the request with this number ({@link #requests} so far + 1 is the next) with an error.
   */
  public void failAt(int request) {
    fail(request, request);
  }

  /** Answers the request with this number and every later one with an error. */
  public void failFrom(int request) {
    fail(request, Integer.MAX_VALUE);
  }

  private synchronized void fail(int first, int last) {
    failed = null;
    failingFrom = first;
    failingTo = last;
  }

  private synchronized boolean failing(int request) {
    return request >= failingFrom && request <= failingTo;
  }

  /**
   * The first request line ({@code POST /v1/table/db%24t/describe?...}) answered with an error, if
   * any.
   */
  public String failed() {
    return failed;
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      String line = exchange.getRequestMethod() + " " + exchange.getRequestURI();
      byte[] body;
      try (InputStream in = exchange.getRequestBody()) {
        body = in.readAllBytes();
      }
      if (failing(requests.incrementAndGet())) {
        if (failed == null) {
          failed = line;
        }
        String headers =
            exchange.getRequestHeaders().entrySet().stream()
                .map(e -> e.getKey() + ": " + String.join(",", e.getValue()))
                .collect(Collectors.joining("; "));
        respond(
            exchange,
            401,
            String.format(
                "{\"error\": \"unauthorized: %s\", \"code\": 16, \"detail\": \"headers %s\","
                    + " \"instance\": \"%s\"}",
                json(exchange.getRequestHeaders().getFirst("Authorization")),
                json(headers),
                json(headers)));
        return;
      }
      forward(exchange, body);
    }
  }

  private void forward(HttpExchange exchange, byte[] body) throws IOException {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + backend.getPort() + exchange.getRequestURI()))
            .method(exchange.getRequestMethod(), HttpRequest.BodyPublishers.ofByteArray(body));
    exchange
        .getRequestHeaders()
        .forEach(
            (name, values) -> {
              if (!NOT_FORWARDED.contains(name.toLowerCase(java.util.Locale.ROOT))) {
                values.forEach(value -> request.header(name, value));
              }
            });
    HttpResponse<byte[]> response;
    try {
      response = client.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(e);
    }
    response
        .headers()
        .firstValue("content-type")
        .ifPresent(type -> exchange.getResponseHeaders().add("Content-Type", type));
    byte[] answer = response.body();
    exchange.sendResponseHeaders(response.statusCode(), answer.length == 0 ? -1 : answer.length);
    if (answer.length > 0) {
      exchange.getResponseBody().write(answer);
    }
  }

  private static void respond(HttpExchange exchange, int status, String json) throws IOException {
    byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().add("Content-Type", "application/json");
    exchange.sendResponseHeaders(status, bytes.length);
    exchange.getResponseBody().write(bytes);
  }

  private static String json(String text) {
    return String.valueOf(text).replace("\\", "\\\\").replace("\"", "\\\"");
  }

  @Override
  public void close() {
    proxy.stop(0);
    backend.close();
  }
}
