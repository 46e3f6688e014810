package dev.flinklance.sink.dynamic;

import org.apache.flink.annotation.PublicEvolving;

/** TEMPORARY STUB (reverted before merging main). */
@PublicEvolving
public final class DynamicLanceSinkBuilder {
  public DynamicLanceSinkBuilder warehouse(String uri) {
    return this;
  }

  public DynamicLanceSinkBuilder storageOption(String key, String value) {
    return this;
  }

  public DynamicLanceSinkBuilder commitUser(String commitUser) {
    return this;
  }

  public DynamicLanceSinkBuilder option(String key, String value) {
    return this;
  }

  public DynamicLanceSink build() {
    return new DynamicLanceSink();
  }
}
