package dev.flinklance.e2e.cluster;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;

/**
 * Flink SQL gateway's REST API: sessions, statements, results read to their end.
 *
 * <p>A result is always read to its end before the session closes: closing a session while a
 * SELECT's collect sink starts can kill the TaskManager (FLINK-39330).
 */
public final class SqlGatewayClient {
  private final FlinkRestClient rest;

  SqlGatewayClient(String host, int port) {
    this.rest = new FlinkRestClient(host, port);
  }

  boolean isUp() {
    try {
      return rest.get("v1/info").has("version");
    } catch (RuntimeException e) {
      return false;
    }
  }

  /** A session with the given session configuration. */
  public Session openSession(Map<String, String> properties) {
    String handle =
        rest.post("v1/sessions", Map.of("properties", properties)).path("sessionHandle").asText();
    return new Session(handle);
  }

  /** One gateway session. */
  public final class Session implements AutoCloseable {
    private final String handle;

    private Session(String handle) {
      this.handle = handle;
    }

    /**
     * Runs a statement and reads its whole result: the rows of a query (the query must be bounded),
     * the job id of an INSERT, "OK" of DDL.
     */
    public List<List<Object>> execute(String statement, Duration timeout)
        throws InterruptedException {
      String operation =
          rest.post("v1/sessions/" + handle + "/statements", Map.of("statement", statement))
              .path("operationHandle")
              .asText();
      List<List<Object>> rows = new ArrayList<>();
      String next =
          "v3/sessions/" + handle + "/operations/" + operation + "/result/0?rowFormat=JSON";
      long deadline = System.nanoTime() + timeout.toNanos();
      while (next != null) {
        JsonNode page = rest.get(next);
        String type = page.path("resultType").asText();
        if (type.equals("NOT_READY")) {
          if (System.nanoTime() > deadline) {
            throw new IllegalStateException("no result for '" + statement + "' within " + timeout);
          }
          Thread.sleep(200);
          continue;
        }
        for (JsonNode row : page.path("results").path("data")) {
          List<Object> values = new ArrayList<>();
          for (JsonNode field : row.path("fields")) {
            values.add(value(field));
          }
          rows.add(values);
        }
        String uri = page.path("nextResultUri").asText(null);
        next = type.equals("EOS") || uri == null ? null : uri.replaceFirst("^/", "");
      }
      return rows;
    }

    /** A JSON value as Java: integers as Long, other numbers as Double, the rest as text. */
    private static Object value(JsonNode field) {
      if (field.isNull()) {
        return null;
      }
      if (field.isIntegralNumber()) {
        return field.longValue();
      }
      return field.isNumber() ? (Object) field.doubleValue() : field.asText();
    }

    @Override
    public void close() {
      rest.delete("v1/sessions/" + handle);
    }
  }
}
