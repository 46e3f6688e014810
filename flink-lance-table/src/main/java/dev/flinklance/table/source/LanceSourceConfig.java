package dev.flinklance.table.source;

import static dev.flinklance.table.source.LanceSourceOptions.SCAN_BATCH_SIZE;
import static dev.flinklance.table.source.LanceSourceOptions.SCAN_FILTER_PUSHDOWN_ENABLED;
import static dev.flinklance.table.source.LanceSourceOptions.SCAN_TAG;
import static dev.flinklance.table.source.LanceSourceOptions.SCAN_VERSION;

import dev.flinklance.dataset.LanceDataset;
import dev.flinklance.dataset.LanceDatasetOptions;
import org.apache.flink.annotation.Internal;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;

/**
 * The validated settings of one source. Every option is checked here, once, with a message that
 * names the option; the DataStream builder and the SQL connector both go through it.
 */
@Internal
public record LanceSourceConfig(
    LanceDataset dataset, Long version, String tag, int batchSize, boolean filterPushdown) {

  /**
   * @throws IllegalArgumentException naming the first invalid option
   */
  public static LanceSourceConfig from(Configuration options) {
    String path = options.get(LanceDatasetOptions.PATH);
    require(
        path != null && !path.isBlank(),
        LanceDatasetOptions.PATH,
        "must be set to the table's URI");
    Long version = options.get(SCAN_VERSION);
    require(version == null || version >= 1, SCAN_VERSION, "must be at least 1, got " + version);
    String tag = options.get(SCAN_TAG);
    require(tag == null || !tag.isBlank(), SCAN_TAG, "must not be blank");
    require(
        version == null || tag == null,
        SCAN_TAG,
        "cannot be combined with '" + SCAN_VERSION.key() + "'");
    int batchSize = options.get(SCAN_BATCH_SIZE);
    require(batchSize > 0, SCAN_BATCH_SIZE, "must be positive, got " + batchSize);
    return new LanceSourceConfig(
        LanceDatasetOptions.dataset(path, options),
        version,
        tag,
        batchSize,
        options.get(SCAN_FILTER_PUSHDOWN_ENABLED));
  }

  private static void require(boolean condition, ConfigOption<?> option, String problem) {
    if (!condition) {
      throw new IllegalArgumentException(
          String.format("Invalid Lance source option '%s': %s", option.key(), problem));
    }
  }
}
