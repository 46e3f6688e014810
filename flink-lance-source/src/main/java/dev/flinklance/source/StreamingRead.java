package dev.flinklance.source;

import java.io.Serializable;
import java.time.Duration;
import java.util.List;
import org.apache.flink.annotation.Internal;

/**
 * How a streaming read follows its table ({@code scan.streaming} and the keys it enables).
 *
 * @param startupVersion with {@link StartupMode#VERSION}, the version after which changes are read
 * @param startupTimestampMillis with {@link StartupMode#TIMESTAMP}, the instant after which
 * @param changelogKey in changelog mode, the columns that pair a removed row with the added row
 *     that updates it (the table's PRIMARY KEY); empty pairs by Lance's stable row id if the table
 *     has them, or not at all
 * @param consumerId {@code scan.consumer-id}: the name the read registers its progress under in the
 *     table, or null
 * @param consumerExpiration {@code scan.consumer.expiration-time}
 */
@Internal
public record StreamingRead(
    StartupMode startupMode,
    Long startupVersion,
    Long startupTimestampMillis,
    Duration discoveryInterval,
    boolean changelog,
    OnOverwrite onOverwrite,
    OnDelete onDelete,
    OnSchemaChange onSchemaChange,
    List<String> changelogKey,
    String consumerId,
    Duration consumerExpiration)
    implements Serializable {

  public StreamingRead {
    changelogKey = List.copyOf(changelogKey);
  }

  public StreamingRead withChangelogKey(List<String> columns) {
    return new StreamingRead(
        startupMode,
        startupVersion,
        startupTimestampMillis,
        discoveryInterval,
        changelog,
        onOverwrite,
        onDelete,
        onSchemaChange,
        columns,
        consumerId,
        consumerExpiration);
  }
}
