package dev.flinklance.e2e.soak;

import java.time.Duration;

/**
 * The soak run's knobs, from system properties ({@code bin/soak} passes them through Maven): the
 * defaults are the CI variant's.
 *
 * @param duration how long the generators write (their row counts are rate times this)
 * @param killEvery a TaskManager is killed with {@code kill -9} this often, and replaced
 * @param sampleEvery one printed line (and CSV row) this often
 * @param cleanupOlderThan {@code compaction.cleanup-older-than}: the GC window
 * @param smallFragments {@code compaction.trigger.small-fragments}
 * @param targetRowsPerFragment {@code compaction.target-rows-per-fragment}
 * @param warmUp RSS samples of a TaskManager's first this long are left out of its slope
 * @param s3 the tables in S3TestServer's bucket instead of on local disk
 * @param s3Delay with {@code s3}: how late the server answers every request
 * @param s3FailureBurst with {@code s3}: how many requests in a row get 503 SlowDown, every {@code
 *     s3BurstEvery}
 * @param tableOptions more options of every table the jobs read and write ({@code key=value,...}:
 *     {@code metadata-cache-size=4mb}), or empty
 * @param connectorInLib the connector jar in the cluster's {@code lib/}, as a long-running
 *     deployment should have it; false: inside the job jar, where every job class loader (every
 *     restart of a job on a TaskManager) loads Lance's native library again
 */
public record SoakConfig(
    Duration duration,
    Duration killEvery,
    Duration sampleEvery,
    long appendRowsPerSecond,
    long upsertChangesPerSecond,
    long keys,
    long lookupsPerSecond,
    Duration cleanupOlderThan,
    int smallFragments,
    long targetRowsPerFragment,
    Duration warmUp,
    boolean s3,
    Duration s3Delay,
    int s3FailureBurst,
    Duration s3BurstEvery,
    String tableOptions,
    boolean connectorInLib) {

  /**
   * A slope over a shorter window than this is reported, not judged: RSS moves by tens of MB as the
   * heap and the allocators settle, which over a few minutes looks like any slope at all.
   */
  static final Duration MIN_SLOPE_WINDOW = Duration.ofMinutes(20);

  /**
   * The RSS slope that counts as flat: 25 MB/h is 600 MB a day, under half of a TaskManager's 1344
   * MB process size (the e2e cluster's), so a larger slope takes a TaskManager down within a few
   * days; a smaller one is within what 60 minutes of samples can tell from noise.
   */
  static final double FLAT_MB_PER_HOUR = 25;

  public static SoakConfig fromSystemProperties() {
    return new SoakConfig(
        Duration.ofSeconds((long) (Double.parseDouble(property("soak.minutes", "2.5")) * 60)),
        Duration.ofSeconds(Long.parseLong(property("soak.kill-every-seconds", "75"))),
        Duration.ofSeconds(Long.parseLong(property("soak.sample-every-seconds", "10"))),
        Long.parseLong(property("soak.append-rate", "1000")),
        Long.parseLong(property("soak.upsert-rate", "300")),
        Long.parseLong(property("soak.keys", "10000")),
        Long.parseLong(property("soak.lookup-rate", "100")),
        Duration.ofSeconds(Long.parseLong(property("soak.cleanup-older-than-seconds", "120"))),
        16,
        50_000,
        Duration.ofSeconds(Long.parseLong(property("soak.warm-up-seconds", "120"))),
        Boolean.parseBoolean(property("soak.s3", "false")),
        Duration.ofMillis(Long.parseLong(property("soak.s3-delay-ms", "20"))),
        Integer.parseInt(property("soak.s3-failure-burst", "20")),
        Duration.ofSeconds(Long.parseLong(property("soak.s3-burst-every-seconds", "60"))),
        property("soak.table-options", ""),
        connectorIn(property("soak.connector-in", "lib")));
  }

  private static boolean connectorIn(String where) {
    return switch (where) {
      case "lib" -> true;
      case "job-jar" -> false;
      default ->
          throw new IllegalArgumentException(
              "soak.connector-in must be lib or job-jar, got '" + where + "'");
    };
  }

  /** The jobs' options: the sinks' {@code compaction.*} and the tables', as SoakJob takes them. */
  String jobOptions() {
    return "compaction.enabled=true"
        + ",compaction.trigger.small-fragments="
        + smallFragments
        + ",compaction.target-rows-per-fragment="
        + targetRowsPerFragment
        + ",compaction.cleanup-older-than="
        + cleanupOlderThan.toSeconds()
        + " s"
        + (tableOptions.isEmpty() ? "" : "," + tableOptions);
  }

  long appendRows() {
    return appendRowsPerSecond * duration.toSeconds();
  }

  long lookups() {
    return lookupsPerSecond * duration.toSeconds();
  }

  long upsertChanges() {
    return upsertChangesPerSecond * duration.toSeconds();
  }

  private static String property(String key, String defaultValue) {
    String value = System.getProperty(key);
    return value == null || value.isBlank() ? defaultValue : value;
  }
}
