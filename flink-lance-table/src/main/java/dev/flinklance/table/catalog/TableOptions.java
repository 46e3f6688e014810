package dev.flinklance.table.catalog;

import dev.flinklance.access.LanceDatasetOptions;
import dev.flinklance.table.LanceDynamicTableFactory;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.apache.flink.annotation.Internal;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.factories.FactoryUtil;

/**
 * The options a catalog table keeps in its Lance table's own config ({@code flink.<key>}), so that
 * every session, and every other Lance reader, sees them. Storage options stay with the catalog:
 * table config is readable by anyone who can read the table.
 */
@Internal
public final class TableOptions {
  static final String CONFIG_PREFIX = "flink.";
  static final String COMMENT_KEY = CONFIG_PREFIX + "comment";

  /**
   * Options whose entries name columns. An entry of a column the table does not have (dropped, or
   * not added yet) is inert: a sink and the Lance schema of an added column see only the entries of
   * the table's columns.
   */
  private static final List<ConfigOption<Map<String, String>>> PER_COLUMN =
      List.of(LanceDatasetOptions.VECTOR_COLUMNS, LanceDatasetOptions.SINK_COMPRESSION_COLUMNS);

  /** Options that shape the table when it is created; changing them later changes nothing. */
  static final Set<String> CREATION_ONLY =
      Set.of(
          LanceDatasetOptions.VECTOR_COLUMNS.key(),
          LanceDatasetOptions.STABLE_ROW_IDS.key(),
          LanceDatasetOptions.DATA_STORAGE_VERSION.key(),
          LanceDatasetOptions.SINK_COMPRESSION.key(),
          LanceDatasetOptions.SINK_COMPRESSION_LEVEL.key(),
          LanceDatasetOptions.SINK_COMPRESSION_COLUMNS.key());

  private static final Set<String> ALLOWED = allowedKeys();

  private TableOptions() {}

  private static Set<String> allowedKeys() {
    Set<String> keys = new TreeSet<>();
    for (ConfigOption<?> option : new LanceDynamicTableFactory().optionalOptions()) {
      keys.add(option.key());
    }
    return keys;
  }

  /**
   * The options of a CREATE TABLE in the catalog, without {@code 'connector' = 'lance'}.
   *
   * @throws ValidationException naming an option the catalog does not take
   */
  static Map<String, String> forCreate(Map<String, String> options) {
    Map<String, String> kept = new HashMap<>(options);
    String connector = kept.remove(FactoryUtil.CONNECTOR.key());
    if (connector != null && !connector.equals(LanceDynamicTableFactory.IDENTIFIER)) {
      throw new ValidationException(
          String.format(
              "The Lance catalog holds Lance tables only, not 'connector' = '%s'; create other"
                  + " tables as TEMPORARY tables or in another catalog",
              connector));
    }
    kept.keySet().forEach(TableOptions::checkKey);
    return kept;
  }

  /**
   * @throws ValidationException naming the option if a table in the catalog cannot have it
   */
  static void checkKey(String key) {
    if (key.equals(LanceDatasetOptions.PATH.key())) {
      throw new ValidationException(
          "Tables in the Lance catalog cannot set 'path': the catalog places its tables (its"
              + " namespace, or <warehouse>/db/t.lance)");
    }
    if (key.startsWith(LanceDatasetOptions.STORAGE_PREFIX)) {
      throw new ValidationException(
          String.format(
              "Option '%s': set storage options on the catalog (CREATE CATALOG ... WITH"
                  + " ('storage.<key>' = ...)); a table's options are stored in the table, where"
                  + " every reader of the table can see them",
              key));
    }
    if (!ALLOWED.contains(key)) {
      throw new ValidationException(
          String.format(
              "Unsupported option '%s' for a table in the Lance catalog. Supported: %s",
              key, ALLOWED));
    }
  }

  /** The table config entries that store {@code options} and {@code comment}. */
  static Map<String, String> toConfig(Map<String, String> options, String comment) {
    Map<String, String> config = new HashMap<>();
    options.forEach((key, value) -> config.put(CONFIG_PREFIX + key, value));
    if (comment != null && !comment.isEmpty()) {
      config.put(COMMENT_KEY, comment);
    }
    return config;
  }

  /** {@code options} without the per-column entries of columns not in {@code columns}. */
  static Map<String, String> forColumns(Map<String, String> options, Collection<String> columns) {
    Map<String, String> kept = new HashMap<>(options);
    for (ConfigOption<Map<String, String>> option : PER_COLUMN) {
      if (!options.containsKey(option.key())) {
        continue;
      }
      Map<String, String> entries = new LinkedHashMap<>(entries(options, option));
      if (entries.keySet().retainAll(columns)) {
        if (entries.isEmpty()) {
          kept.remove(option.key());
        } else {
          kept.put(option.key(), mapText(entries));
        }
      }
    }
    return kept;
  }

  /**
   * Checks a change of {@code 'vector-columns'}: the entries of the table's columns are fixed when
   * they are created (their Lance type is FixedSizeList, or not); an entry of a column the table
   * does not have gives a later {@code ALTER TABLE ... ADD} of that ARRAY column its dimension.
   *
   * @throws ValidationException naming the table and the column whose entry would change
   */
  static void checkVectorColumns(
      String table,
      Map<String, String> before,
      Map<String, String> after,
      Collection<String> columns) {
    Map<String, String> old = entries(before, LanceDatasetOptions.VECTOR_COLUMNS);
    Map<String, String> updated = entries(after, LanceDatasetOptions.VECTOR_COLUMNS);
    for (String column : columns) {
      if (!Objects.equals(trimmed(old.get(column)), trimmed(updated.get(column)))) {
        throw new ValidationException(
            String.format(
                "Option '%s' of table %s: column '%s' exists, %s; its entry cannot change. Entries"
                    + " may be added or removed only for columns the table does not have yet:"
                    + " ALTER TABLE ... SET ('%s' = '<col>:<dimension>') and then ALTER TABLE ..."
                    + " ADD <col> ARRAY<FLOAT> adds a vector column of that dimension.",
                LanceDatasetOptions.VECTOR_COLUMNS.key(),
                table,
                column,
                old.containsKey(column)
                    ? "a vector of dimension " + old.get(column).trim()
                    : "not a vector column",
                LanceDatasetOptions.VECTOR_COLUMNS.key()));
      }
    }
  }

  /** A map option's value as a user writes it ({@code emb:4,title:8}), quoted where needed. */
  private static String mapText(Map<String, String> entries) {
    return entries.entrySet().stream()
        .map(entry -> quoted(entry.getKey()) + ":" + quoted(entry.getValue()))
        .collect(Collectors.joining(","));
  }

  private static String quoted(String text) {
    return text.matches("[^,:'\"]*") ? text : "'" + text.replace("'", "''") + "'";
  }

  private static String trimmed(String value) {
    return value == null ? null : value.trim();
  }

  private static Map<String, String> entries(
      Map<String, String> options, ConfigOption<Map<String, String>> option) {
    try {
      return Configuration.fromMap(options).get(option);
    } catch (IllegalArgumentException e) {
      throw new ValidationException(
          String.format("Option '%s' is not a list of key:value pairs", option.key()), e);
    }
  }

  /** The options stored in a table's config (entries of other tools are left out). */
  static Map<String, String> fromConfig(Map<String, String> config) {
    Map<String, String> options = new HashMap<>();
    config.forEach(
        (key, value) -> {
          if (key.startsWith(CONFIG_PREFIX) && !key.equals(COMMENT_KEY)) {
            options.put(key.substring(CONFIG_PREFIX.length()), value);
          }
        });
    return options;
  }
}
