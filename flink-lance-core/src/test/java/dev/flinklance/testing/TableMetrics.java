package dev.flinklance.testing;

import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.apache.flink.api.common.JobID;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Metric;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.testutils.InMemoryReporter;

/**
 * The metrics a job reported to an {@link InMemoryReporter} in the groups whose {@code table}
 * variable names one table, each with the identifier a reporter shows ({@code
 * ...<operator>.<subtask>.lance.table.<name>.committedRows}).
 */
public final class TableMetrics {
  private static final Pattern PREFIXED = Pattern.compile("lance[A-Z].*");

  /** One metric: where a reporter shows it, its name in its group, its value. */
  public record Reported(String identifier, String name, Metric metric) {}

  private final List<Reported> metrics;

  private TableMetrics(List<Reported> metrics) {
    this.metrics = metrics;
  }

  /** Every metric of {@code job} keyed by {@code table = <table>}, on every operator. */
  public static TableMetrics of(InMemoryReporter reporter, JobID job, String table) {
    return new TableMetrics(
        reporter.getMetricsByGroup().entrySet().stream()
            .filter(e -> ofJob(e.getKey(), job))
            .filter(e -> table.equals(e.getKey().getAllVariables().get("<table>")))
            .flatMap(e -> reported(e.getKey(), e.getValue()).stream())
            .toList());
  }

  /**
   * The names of {@code job}'s metrics in the connector's old flat form ({@code lanceCommittedRows}
   * on the operator): none may be left.
   */
  public static List<String> prefixedNames(InMemoryReporter reporter, JobID job) {
    return reporter.getMetricsByGroup().entrySet().stream()
        .filter(e -> ofJob(e.getKey(), job))
        .flatMap(e -> reported(e.getKey(), e.getValue()).stream())
        .filter(r -> PREFIXED.matcher(r.name()).matches())
        .map(Reported::identifier)
        .toList();
  }

  /** Those whose identifier contains {@code part} (an operator's name, {@code "Writer"}). */
  public TableMetrics on(String part) {
    return new TableMetrics(metrics.stream().filter(r -> r.identifier().contains(part)).toList());
  }

  public List<Reported> all() {
    return metrics;
  }

  public List<String> identifiers() {
    return metrics.stream().map(Reported::identifier).toList();
  }

  /** The sum of the counters {@code name} of every subtask. */
  public long count(String name) {
    return named(name).stream().mapToLong(m -> ((Counter) m).getCount()).sum();
  }

  /** The values of the gauges {@code name}, one per subtask. */
  public List<Long> gauges(String name) {
    return named(name).stream().map(m -> ((Number) ((Gauge<?>) m).getValue()).longValue()).toList();
  }

  private List<Metric> named(String name) {
    return metrics.stream().filter(r -> r.name().equals(name)).map(Reported::metric).toList();
  }

  private static boolean ofJob(MetricGroup group, JobID job) {
    return job.toString().equals(group.getAllVariables().get("<job_id>"));
  }

  private static List<Reported> reported(MetricGroup group, Map<String, Metric> metrics) {
    return metrics.entrySet().stream()
        .map(e -> new Reported(group.getMetricIdentifier(e.getKey()), e.getKey(), e.getValue()))
        .toList();
  }
}
