package dev.flinklance.e2e.soak;

import dev.flinklance.e2e.cluster.FlinkRestClient;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;

/**
 * What the soak run reads of the cluster: over Flink's REST API (checkpoints, operator and
 * TaskManager metrics, where a job's tasks run) and from {@code /proc} (a TaskManager's resident
 * memory). A value that is not there (a job restarting, a metric not yet registered) is empty.
 */
final class ClusterProbe {
  private final FlinkRestClient rest;

  ClusterProbe(FlinkRestClient rest) {
    this.rest = rest;
  }

  /** End-to-end duration of the job's latest completed checkpoint, in milliseconds. */
  OptionalLong lastCheckpointMillis(String job) {
    try {
      JsonNode completed =
          rest.get("jobs/" + job + "/checkpoints").path("latest").path("completed");
      return completed.isMissingNode() || completed.isNull()
          ? OptionalLong.empty()
          : OptionalLong.of(completed.path("end_to_end_duration").asLong());
    } catch (RuntimeException e) {
      return OptionalLong.empty();
    }
  }

  /** Records the job's first vertex (its source) has emitted since the job (re)started. */
  OptionalLong sourceRecordsOut(String job) {
    try {
      JsonNode vertices = rest.get("jobs/" + job).path("vertices");
      return vertices.isEmpty()
          ? OptionalLong.empty()
          : OptionalLong.of(vertices.get(0).path("metrics").path("write-records").asLong());
    } catch (RuntimeException e) {
      return OptionalLong.empty();
    }
  }

  /**
   * The largest value over the job's subtasks of the operator metric whose name ends with {@code
   * suffix} ({@code lastCommitDurationMs}); also the metrics of the operators' parts that run on
   * the JobManager (a source's enumerator: {@code versionsBehindLatest}).
   */
  OptionalLong operatorMetric(String job, String suffix) {
    try {
      for (JsonNode vertex : rest.get("jobs/" + job).path("vertices")) {
        String base = "jobs/" + job + "/vertices/" + vertex.path("id").asText();
        for (String metrics : List.of(base + "/subtasks/metrics", base + "/jm-operator-metrics")) {
          OptionalLong value = metric(metrics, suffix);
          if (value.isPresent()) {
            return value;
          }
        }
      }
    } catch (RuntimeException e) {
      // restarting: no vertices or no metrics
    }
    return OptionalLong.empty();
  }

  private OptionalLong metric(String metrics, String suffix) {
    for (JsonNode metric : rest.get(metrics)) {
      String id = metric.path("id").asText();
      if (id.endsWith(suffix)) {
        boolean aggregated = metrics.endsWith("/subtasks/metrics");
        JsonNode values =
            rest.get(metrics + "?" + (aggregated ? "agg=max&" : "") + "get=" + encode(id));
        String field = aggregated ? "max" : "value";
        if (values.size() > 0 && values.get(0).has(field)) {
          return OptionalLong.of((long) values.get(0).path(field).asDouble());
        }
      }
    }
    return OptionalLong.empty();
  }

  /** The TaskManagers running tasks of the job. */
  List<String> taskManagersOf(String job) {
    List<String> ids = new ArrayList<>();
    try {
      for (JsonNode vertex : rest.get("jobs/" + job).path("vertices")) {
        JsonNode tms =
            rest.get("jobs/" + job + "/vertices/" + vertex.path("id").asText() + "/taskmanagers");
        for (JsonNode tm : tms.path("taskmanagers")) {
          String id = tm.path("taskmanager-id").asText();
          if (!id.isEmpty() && !ids.contains(id)) {
            ids.add(id);
          }
        }
      }
    } catch (RuntimeException e) {
      // restarting
    }
    return ids;
  }

  /** The TaskManager's JVM heap in use, in bytes. */
  OptionalLong heapUsed(String taskManager) {
    try {
      JsonNode values =
          rest.get("taskmanagers/" + taskManager + "/metrics?get=Status.JVM.Memory.Heap.Used");
      return values.size() == 0
          ? OptionalLong.empty()
          : OptionalLong.of((long) values.get(0).path("value").asDouble());
    } catch (RuntimeException e) {
      return OptionalLong.empty();
    }
  }

  /** Restarts of the job so far (its exception history's length). */
  int failovers(String job) {
    try {
      return rest.exceptionHistory(job).size();
    } catch (RuntimeException e) {
      return -1;
    }
  }

  /** Resident set size of a process ({@code VmRSS}), in bytes. */
  static OptionalLong residentBytes(long pid) {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
        if (line.startsWith("VmRSS:")) {
          String[] parts = line.substring(6).trim().split("\\s+");
          return OptionalLong.of(Long.parseLong(parts[0]) * 1024);
        }
      }
    } catch (IOException | RuntimeException e) {
      // the process ended
    }
    return OptionalLong.empty();
  }

  private static String encode(String value) {
    return URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20");
  }
}
