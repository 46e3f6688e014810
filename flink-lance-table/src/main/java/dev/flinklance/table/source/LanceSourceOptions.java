package dev.flinklance.table.source;

import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;

/**
 * The source's options ({@code scan.*}). Which table is {@link
 * dev.flinklance.dataset.LanceDatasetOptions}; the same keys work in the DataStream builder, in
 * {@code WITH (...)} and in a query's {@code OPTIONS} hint.
 */
@PublicEvolving
public final class LanceSourceOptions {

  public static final ConfigOption<Long> SCAN_VERSION =
      ConfigOptions.key("scan.version")
          .longType()
          .noDefaultValue()
          .withDescription(
              "Table version to read (time travel). Default: the latest version when the job"
                  + " starts; a restored job keeps reading the version it started with.");

  public static final ConfigOption<String> SCAN_TAG =
      ConfigOptions.key("scan.tag")
          .stringType()
          .noDefaultValue()
          .withDescription(
              "Read the version a Lance tag points to. Cannot be combined with scan.version.");

  public static final ConfigOption<Integer> SCAN_BATCH_SIZE =
      ConfigOptions.key("scan.batch-size")
          .intType()
          .defaultValue(8192)
          .withDescription(
              "Rows per Arrow batch read from Lance. Larger batches cost more memory per reader"
                  + " (a few batches are in flight per reader), smaller ones more overhead.");

  public static final ConfigOption<Boolean> SCAN_FILTER_PUSHDOWN_ENABLED =
      ConfigOptions.key("scan.filter-pushdown.enabled")
          .booleanType()
          .defaultValue(true)
          .withDescription(
              "Let Lance evaluate the filters it evaluates exactly as Flink does (comparisons, IN,"
                  + " IS NULL, AND/OR/NOT, LIKE 'prefix%'); Flink evaluates the rest. When false,"
                  + " Flink evaluates every filter.");

  private LanceSourceOptions() {}
}
