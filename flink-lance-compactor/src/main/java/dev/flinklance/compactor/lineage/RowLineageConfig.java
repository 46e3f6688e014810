package dev.flinklance.compactor.lineage;

import java.util.Map;
import org.apache.flink.annotation.Internal;

/**
 * The row-lineage settings of a Lance table, read from the table's own config (the same keys as
 * upstream Lance, so that a table keeps its settings whichever writer compacts it).
 *
 * @param spill whether compaction moves carried-over row ids out of the manifest
 * @param inlineMaxBytes a compacted fragment's row-id sequence larger than this is spilled
 */
@Internal
public record RowLineageConfig(boolean spill, long inlineMaxBytes) {
  public static final String SPILL = "lance.row_lineage.spill";
  public static final String INLINE_MAX_BYTES = "lance.row_lineage.inline_max_bytes";
  public static final long DEFAULT_INLINE_MAX_BYTES = 204_800;

  /**
   * @throws IllegalArgumentException naming the key and the table if a value is not valid
   */
  public static RowLineageConfig of(Map<String, String> tableConfig, String uri) {
    String spill = tableConfig.getOrDefault(SPILL, "false").trim();
    if (!spill.equalsIgnoreCase("true") && !spill.equalsIgnoreCase("false")) {
      throw invalid(SPILL, spill, uri, "true or false");
    }
    String budget = tableConfig.get(INLINE_MAX_BYTES);
    long inlineMaxBytes = DEFAULT_INLINE_MAX_BYTES;
    if (budget != null) {
      try {
        inlineMaxBytes = Long.parseLong(budget.trim());
      } catch (NumberFormatException e) {
        throw invalid(INLINE_MAX_BYTES, budget, uri, "a number of bytes");
      }
      if (inlineMaxBytes < 0) {
        throw invalid(INLINE_MAX_BYTES, budget, uri, "not negative");
      }
    }
    return new RowLineageConfig(Boolean.parseBoolean(spill), inlineMaxBytes);
  }

  private static IllegalArgumentException invalid(
      String key, String value, String uri, String expected) {
    return new IllegalArgumentException(
        String.format(
            "Lance table '%s': table config '%s' is '%s', expected %s", uri, key, value, expected));
  }
}
