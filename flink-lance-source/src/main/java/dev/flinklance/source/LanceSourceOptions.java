package dev.flinklance.source;

import java.time.Duration;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;

/**
 * The source's options ({@code scan.*}). Which table is {@link
 * dev.flinklance.access.LanceDatasetOptions}; the same keys work in the DataStream builder, in
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

  public static final ConfigOption<Boolean> SCAN_STREAMING =
      ConfigOptions.key("scan.streaming")
          .booleanType()
          .defaultValue(false)
          .withDescription(
              "Follow the table: after the start position (scan.startup.mode), read every new"
                  + " version once, in version order, without end. false reads one version and"
                  + " ends; the streaming keys are then checked and ignored.");

  public static final ConfigOption<StartupMode> SCAN_STARTUP_MODE =
      ConfigOptions.key("scan.startup.mode")
          .enumType(StartupMode.class)
          .defaultValue(StartupMode.FULL)
          .withDescription(
              "Where a streaming read starts: full reads the table at its latest version, then"
                  + " every change after it; latest reads only the changes after the latest"
                  + " version; version the changes after scan.startup.version; timestamp the"
                  + " changes committed after scan.startup.timestamp-millis. A restored job goes"
                  + " on from its checkpoint instead.");

  public static final ConfigOption<Long> SCAN_STARTUP_VERSION =
      ConfigOptions.key("scan.startup.version")
          .longType()
          .noDefaultValue()
          .withDescription(
              "With scan.startup.mode = version: the version after which to read changes (its"
                  + " own rows are not read; 0 reads every version from the table's first).");

  public static final ConfigOption<Long> SCAN_STARTUP_TIMESTAMP_MILLIS =
      ConfigOptions.key("scan.startup.timestamp-millis")
          .longType()
          .noDefaultValue()
          .withDescription(
              "With scan.startup.mode = timestamp: read the changes of the versions committed"
                  + " after this instant (milliseconds since the epoch).");

  public static final ConfigOption<Duration> SCAN_DISCOVERY_INTERVAL =
      ConfigOptions.key("scan.discovery-interval")
          .durationType()
          .defaultValue(Duration.ofSeconds(10))
          .withDescription(
              "How often a streaming read looks for new table versions. A version is read at"
                  + " most this long (plus the read itself) after its commit.");

  public static final ConfigOption<Boolean> SCAN_CHANGELOG =
      ConfigOptions.key("scan.changelog")
          .booleanType()
          .defaultValue(false)
          .withDescription(
              "Streaming read of every change: rows a version deletes as -D (or -U), rows it adds"
                  + " as +I (or +U, an update paired with its old row by the PRIMARY KEY, else by"
                  + " Lance's stable row id). One reader reads all of them, in order; the source's"
                  + " other readers stay idle. false reads appended rows only (+I).");

  public static final ConfigOption<OnOverwrite> SCAN_ON_OVERWRITE =
      ConfigOptions.key("scan.on-overwrite")
          .enumType(OnOverwrite.class)
          .defaultValue(OnOverwrite.FAIL)
          .withDescription(
              "What a streaming read does with a version that replaced the table's rows (an"
                  + " Overwrite, INSERT OVERWRITE, a Restore): fail fails the job naming the table"
                  + " and version, without emitting any of the new rows; skip emits nothing for it"
                  + " and goes on; changelog (needs scan.changelog) emits every row of the version"
                  + " before as -D, then every row of the new one as +I.");

  public static final ConfigOption<OnDelete> SCAN_ON_DELETE =
      ConfigOptions.key("scan.on-delete")
          .enumType(OnDelete.class)
          .defaultValue(OnDelete.FAIL)
          .withDescription(
              "What an append-only streaming read (scan.changelog = false) does with a version"
                  + " that deletes or updates rows (a Lance delete, merge-insert, an upsert"
                  + " sink): fail fails the job naming the table and version; skip emits nothing"
                  + " for the version (not its new rows either) and goes on.");

  public static final ConfigOption<OnSchemaChange> SCAN_ON_SCHEMA_CHANGE =
      ConfigOptions.key("scan.on-schema-change")
          .enumType(OnSchemaChange.class)
          .defaultValue(OnSchemaChange.FAIL)
          .withDescription(
              "What a streaming read does with a version that another client made drop or rename"
                  + " a column it reads: fail fails the job naming the table, the version and the"
                  + " change, having emitted every change before it; continue goes on, the column"
                  + " NULL from that version on (a NOT NULL column, or one that pairs a"
                  + " changelog's updates, still fails). A column added goes on either way, NULL"
                  + " in the rows before it; a column retyped to a type the read cannot take"
                  + " always fails.");

  public static final ConfigOption<String> SCAN_CONSUMER_ID =
      ConfigOptions.key("scan.consumer-id")
          .stringType()
          .noDefaultValue()
          .withDescription(
              "Registers a streaming read in its table as this consumer (a file"
                  + " _consumers/<id>.json beside the table's own, local or s3:// tables): the"
                  + " oldest version a restore of its last completed checkpoint reads, written at"
                  + " every completed checkpoint. This connector's version cleanup"
                  + " (compaction.cleanup-older-than, the standalone job's --cleanup-older-than)"
                  + " keeps that version and every later one. One id per read: two reads with one"
                  + " id overwrite each other's registration. Letters, digits, '.', '_', '-'.");

  public static final ConfigOption<Duration> SCAN_CONSUMER_EXPIRATION_TIME =
      ConfigOptions.key("scan.consumer.expiration-time")
          .durationType()
          .defaultValue(Duration.ofDays(1))
          .withDescription(
              "How long a consumer's registration (scan.consumer-id) protects its versions after"
                  + " the read last wrote it: a running read writes it at every completed"
                  + " checkpoint, and at least every quarter of this time; a read stopped longer"
                  + " (cancelled, abandoned, or stopped with a savepoint and not yet restored)"
                  + " protects nothing after it, and cleanup deletes the registration.");

  private LanceSourceOptions() {}
}
