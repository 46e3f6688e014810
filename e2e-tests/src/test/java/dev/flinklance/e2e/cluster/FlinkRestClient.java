package dev.flinklance.e2e.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The parts of Flink's REST API the tests use, over plain HTTP as any client would: jar upload and
 * run, job status, checkpoints, exceptions, TaskManagers.
 */
public final class FlinkRestClient {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final URI base;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  public FlinkRestClient(String host, int port) {
    this.base = URI.create("http://" + host + ":" + port + "/");
  }

  public URI base() {
    return base;
  }

  /** GET; the JSON body, or an exception naming the status and body. */
  public JsonNode get(String path) {
    return send(HttpRequest.newBuilder(base.resolve(path)).GET().build());
  }

  public JsonNode post(String path, Object body) {
    try {
      return send(
          HttpRequest.newBuilder(base.resolve(path))
              .header("Content-Type", "application/json")
              .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body)))
              .build());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public JsonNode delete(String path) {
    return send(HttpRequest.newBuilder(base.resolve(path)).DELETE().build());
  }

  /** Whether the REST endpoint answers (the JobManager is up). */
  public boolean isUp() {
    try {
      return http.send(
                  HttpRequest.newBuilder(base.resolve("overview"))
                      .timeout(Duration.ofSeconds(2))
                      .GET()
                      .build(),
                  HttpResponse.BodyHandlers.discarding())
              .statusCode()
          == 200;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** {@code POST /jars/upload}; returns the jar id for {@link #runJar}. */
  public String uploadJar(Path jar) {
    String boundary = "----flinklance" + UUID.randomUUID();
    String head =
        "--"
            + boundary
            + "\r\nContent-Disposition: form-data; name=\"jarfile\"; filename=\""
            + jar.getFileName()
            + "\"\r\nContent-Type: application/java-archive\r\n\r\n";
    String tail = "\r\n--" + boundary + "--\r\n";
    try {
      HttpRequest request =
          HttpRequest.newBuilder(base.resolve("jars/upload"))
              .header("Content-Type", "multipart/form-data; boundary=" + boundary)
              .POST(
                  HttpRequest.BodyPublishers.concat(
                      HttpRequest.BodyPublishers.ofString(head),
                      HttpRequest.BodyPublishers.ofFile(jar),
                      HttpRequest.BodyPublishers.ofString(tail)))
              .timeout(Duration.ofMinutes(2))
              .build();
      JsonNode answer = send(request);
      String stored = answer.path("filename").asText();
      if (!"success".equals(answer.path("status").asText()) || stored.isEmpty()) {
        throw new IllegalStateException("upload of " + jar + " failed: " + answer);
      }
      return Path.of(stored).getFileName().toString();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * {@code POST /jars/<id>/run}. Arguments go as {@code programArgsList}: Flink 2.2 silently
   * ignores a {@code programArgs} string.
   *
   * @return the job id
   */
  public String runJar(String jarId, String entryClass, List<String> args, int parallelism) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("entryClass", entryClass);
    body.put("programArgsList", args);
    body.put("parallelism", parallelism);
    return post("jars/" + jarId + "/run", body).path("jobid").asText();
  }

  /** {@code PATCH /jobs/<id>?mode=cancel}: cancels the job (returns at once). */
  public void cancel(String jobId) {
    send(
        HttpRequest.newBuilder(base.resolve("jobs/" + jobId + "?mode=cancel"))
            .method("PATCH", HttpRequest.BodyPublishers.noBody())
            .build());
  }

  public String jobStatus(String jobId) {
    return get("jobs/" + jobId).path("state").asText();
  }

  public long completedCheckpoints(String jobId) {
    return get("jobs/" + jobId + "/checkpoints").path("counts").path("completed").asLong();
  }

  /** Root causes of the job's failures so far (failovers included), oldest first. */
  public List<String> exceptionHistory(String jobId) {
    List<String> exceptions = new ArrayList<>();
    for (JsonNode entry :
        get("jobs/" + jobId + "/exceptions").path("exceptionHistory").path("entries")) {
      exceptions.add(
          entry.path("exceptionName").asText()
              + ": "
              + entry.path("stacktrace").asText().lines().findFirst().orElse(""));
    }
    return exceptions;
  }

  /** Ids of the registered TaskManagers. */
  public List<String> taskManagers() {
    List<String> ids = new ArrayList<>();
    for (JsonNode tm : get("taskmanagers").path("taskmanagers")) {
      ids.add(tm.path("id").asText());
    }
    return ids;
  }

  public int freeSlots() {
    return get("overview").path("slots-available").asInt();
  }

  private JsonNode send(HttpRequest request) {
    try {
      HttpResponse<String> response =
          http.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
      if (response.statusCode() / 100 != 2) {
        throw new IllegalStateException(
            request.method()
                + " "
                + request.uri()
                + " answered "
                + response.statusCode()
                + ": "
                + response.body());
      }
      return response.body().isEmpty() ? JSON.createObjectNode() : JSON.readTree(response.body());
    } catch (IOException e) {
      throw new UncheckedIOException(request.method() + " " + request.uri() + " failed", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}
