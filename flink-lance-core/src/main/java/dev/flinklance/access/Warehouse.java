package dev.flinklance.access;

import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.apache.flink.annotation.Internal;
import org.apache.flink.configuration.Configuration;

/**
 * A directory of Lance tables by database and name: table {@code db.t} is {@code
 * <warehouse>/db/t.lance}, the layout of the Lance catalog, LanceDB and Lance's directory
 * namespace, so that all of them see the same tables. The one place that turns names into table
 * URIs ({@link #tableUri}), for the catalog and the dynamic sink alike.
 *
 * <p>Names must stay one plain path segment, the same on every store ({@link #checkName}): each
 * name has exactly one place and each place one name.
 */
@Internal
public final class Warehouse implements Serializable {
  private static final long serialVersionUID = 1L;

  public static final String TABLE_SUFFIX = ".lance";

  /**
   * Longest name, in UTF-8 bytes: a table's directory ({@code name.lance}) must fit the 255 bytes
   * most file systems allow for one path segment.
   */
  public static final int MAX_NAME_BYTES = 255 - TABLE_SUFFIX.length();

  /** The warehouse URI without its query, if any. */
  private final String root;

  /**
   * The query of the warehouse URI ({@code ?ddbTableName=...} of Lance's DynamoDB commit store),
   * which every location inside keeps after its path.
   */
  private final String query;

  private final Map<String, String> storageOptions;
  private final SessionCaches sessionCaches;

  /**
   * @param options {@code storage.*} and the cache limits are kept for every table
   * @throws IllegalArgumentException if the warehouse URI holds characters that end a URI's path
   */
  public Warehouse(String warehouse, Map<String, String> options) {
    TableRef root = LanceDatasetOptions.dataset(warehouse, Configuration.fromMap(options));
    String uri = root.uri();
    int queryStart = uri.indexOf('?');
    String path = queryStart < 0 ? uri : uri.substring(0, queryStart);
    while (path.endsWith("/") && !path.endsWith("://")) {
      path = path.substring(0, path.length() - 1);
    }
    this.root = path;
    this.query = queryStart < 0 ? "" : uri.substring(queryStart);
    this.storageOptions = LanceDatasetOptions.storageOptions(options);
    this.sessionCaches = root.sessionCaches();
  }

  /** The warehouse URI, with its query. */
  public String uri() {
    return root + query;
  }

  /** The warehouse URI without its query: every place inside starts with it and a {@code /}. */
  public String root() {
    return root;
  }

  public Map<String, String> storageOptions() {
    return storageOptions;
  }

  /** The URI of {@code segments} inside the warehouse; the names must have been checked. */
  public String place(String... segments) {
    return root + "/" + String.join("/", segments) + query;
  }

  /**
   * @throws IllegalArgumentException if a name breaks a {@link #checkName rule}
   */
  public String tableUri(String database, String table) {
    checkName("database", database);
    checkName("table", table);
    return place(database, table + TABLE_SUFFIX);
  }

  /** The table {@code database.table}, with the warehouse's storage options and cache limits. */
  public TableRef table(String database, String table) {
    return new TableRef(tableUri(database, table), storageOptions).withSessionCaches(sessionCaches);
  }

  /**
   * A name must stay one plain path segment under its parent, the same on every store: no
   * separators, no {@code .} or {@code ..}, no scheme, none of {@code # ? %} (Lance reads them as
   * URI syntax), no control characters, no surrounding whitespace, at most {@link #MAX_NAME_BYTES}
   * bytes. Database names starting with {@code _} are the catalog's own ({@code _databases.lance});
   * a database named {@code x.lance} would look like a table to Lance.
   *
   * @param kind "database" or "table"
   * @throws IllegalArgumentException naming the name and the rule it breaks
   */
  public static void checkName(String kind, String name) {
    String problem = problemOf(kind, name);
    if (problem != null) {
      throw new IllegalArgumentException(invalidName(kind, name, problem));
    }
  }

  /** The message for a name that breaks a rule: {@code problem} says which ("must not ..."). */
  public static String invalidName(String kind, String name, String problem) {
    return String.format("Invalid Lance %s name '%s': a name %s", kind, name, problem);
  }

  private static String problemOf(String kind, String name) {
    if (name == null || name.isBlank()) {
      return "must not be empty";
    } else if (name.contains("/") || name.contains("\\")) {
      return "must not contain '/' or '\\'";
    } else if (name.contains("..") || name.equals(".")) {
      return "must not contain '..' or be '.'";
    } else if (name.contains(":")) {
      return "must not contain ':' (a URI scheme)";
    } else if (name.contains("#") || name.contains("?") || name.contains("%")) {
      return "must not contain '#', '?' or '%' (Lance reads them as the end of a path or as an"
          + " escape, so the name would point at another place)";
    } else if (name.chars().anyMatch(Character::isISOControl)) {
      return "must not contain control characters (tabs, line breaks)";
    } else if (!StandardCharsets.UTF_8.newEncoder().canEncode(name)) {
      return "must be valid Unicode (it has a lone surrogate)";
    } else if (!name.strip().equals(name)) {
      return "must not start or end with whitespace";
    } else if (name.getBytes(StandardCharsets.UTF_8).length > MAX_NAME_BYTES) {
      return "must be at most " + MAX_NAME_BYTES + " bytes long in UTF-8";
    } else if (kind.equals("database") && name.startsWith("_")) {
      return "must not start with '_' (reserved for the catalog's own tables)";
    } else if (kind.equals("database") && name.endsWith(TABLE_SUFFIX)) {
      return "must not end with '" + TABLE_SUFFIX + "' (Lance would take it for a table)";
    }
    return null;
  }

  @Override
  public String toString() {
    return uri();
  }
}
