package dev.flinklance.sink.dynamic;

import dev.flinklance.access.LanceDatasetOptions;
import dev.flinklance.sink.LanceSinkOptions;
import java.util.Map;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.configuration.Configuration;

/**
 * Builds a {@link DynamicLanceSink}. The options are those of a single-table sink ({@code sink.*},
 * {@code compaction.*}, {@code storage.*}, table layout), applied to every table; {@link #build()}
 * validates them, so misconfiguration fails before the job is submitted.
 */
@PublicEvolving
public final class DynamicLanceSinkBuilder {
  private final Configuration options = new Configuration();

  public DynamicLanceSinkBuilder() {}

  /**
   * The directory the tables live in: the record's table {@code db.t} is the Lance table {@code
   * <warehouse>/db/t.lance}, where the Lance catalog with this warehouse finds it.
   */
  public DynamicLanceSinkBuilder warehouse(String uri) {
    options.set(DynamicLanceSinkOptions.WAREHOUSE, uri);
    return this;
  }

  /** One Lance storage option for every table, e.g. {@code storageOption("aws_region", "x")}. */
  public DynamicLanceSinkBuilder storageOption(String key, String value) {
    options.setString(LanceDatasetOptions.STORAGE_PREFIX + key, value);
    return this;
  }

  public DynamicLanceSinkBuilder storageOptions(Map<String, String> storageOptions) {
    storageOptions.forEach(this::storageOption);
    return this;
  }

  /** Fixes the commit user; by default a UUID is created and kept in Flink state. */
  public DynamicLanceSinkBuilder commitUser(String commitUser) {
    options.set(LanceSinkOptions.SINK_COMMIT_USER, commitUser);
    return this;
  }

  /** Any option of a single-table sink or of the dynamic sink, by its key (as in SQL). */
  public DynamicLanceSinkBuilder option(String key, String value) {
    options.setString(key, value);
    return this;
  }

  /** Every option of {@code options}, by key. */
  public DynamicLanceSinkBuilder options(Map<String, String> values) {
    values.forEach(this::option);
    return this;
  }

  /**
   * @throws IllegalArgumentException naming the first invalid option
   */
  public DynamicLanceSink build() {
    return new DynamicLanceSink(DynamicSinkConfig.from(options));
  }
}
