package dev.flinklance.table.catalog;

import java.time.Duration;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;

/**
 * Options of {@code CREATE CATALOG ... WITH ('type' = 'lance', ...)}. The keys of a catalog on a
 * Lance Namespace are lance-spark's, so that one set of properties configures both engines. Every
 * key that is not one of these is a property of the namespace and passed to it as it is (for
 * example {@code header.Authorization}, {@code delimiter}, {@code tls.*}, {@code
 * manifest_enabled}); {@code storage.*} (see {@link
 * dev.flinklance.access.LanceDatasetOptions#STORAGE_PREFIX}) goes both to the namespace and to
 * every table.
 */
@PublicEvolving
public final class LanceCatalogOptions {

  public static final ConfigOption<String> IMPL =
      ConfigOptions.key("impl")
          .stringType()
          .noDefaultValue()
          .withDescription(
              "The Lance Namespace that holds the catalog's databases and tables: 'dir' (a"
                  + " directory, with 'root'), 'rest' (a Lance REST namespace service, with"
                  + " 'uri') or the class name of a LanceNamespace implementation. Database db is"
                  + " the namespace [db], table db.t the table [db, t].");

  public static final ConfigOption<String> ROOT =
      ConfigOptions.key("root")
          .stringType()
          .noDefaultValue()
          .withDescription(
              "For 'impl' = 'dir': the directory of the namespace, a local path, file://, s3://,"
                  + " gs://, az:// or any URI Lance supports. A relative local path is resolved"
                  + " where the catalog is created.");

  public static final ConfigOption<String> URI =
      ConfigOptions.key("uri")
          .stringType()
          .noDefaultValue()
          .withDescription(
              "For 'impl' = 'rest': the URL of the Lance REST namespace service. HTTP headers"
                  + " are 'header.<name>' (for example 'header.Authorization'; lance-spark's"
                  + " 'headers.<name>' is read too); their values never appear in messages or"
                  + " logs.");

  public static final ConfigOption<String> PARENT =
      ConfigOptions.key("parent")
          .stringType()
          .noDefaultValue()
          .withDescription(
              "Anchors the catalog at a deeper namespace: with 'parent' = 'a.b', database db is"
                  + " the namespace [a, b, db]. Parts are separated by 'parent_delimiter'.");

  public static final ConfigOption<String> PARENT_DELIMITER =
      ConfigOptions.key("parent_delimiter")
          .stringType()
          .defaultValue(".")
          .withDescription("What separates the parts of 'parent'.");

  public static final ConfigOption<Boolean> SINGLE_LEVEL_NS =
      ConfigOptions.key("single_level_ns")
          .booleanType()
          .defaultValue(false)
          .withDescription(
              "The catalog's only database is its default database, which is the root namespace"
                  + " (or 'parent'): for a namespace whose tables are not in child namespaces,"
                  + " such as a directory of LanceDB tables (<root>/t.lance).");

  public static final ConfigOption<Duration> NAMESPACE_TIMEOUT =
      ConfigOptions.key("namespace-timeout")
          .durationType()
          .defaultValue(Duration.ofSeconds(20))
          .withDescription(
              "How long one call to the namespace may take before it fails, naming the"
                  + " namespace (lance-core's REST client has no timeout of its own). Applies to"
                  + " the catalog and to the jobs' calls for a table's storage options.");

  public static final ConfigOption<String> WAREHOUSE =
      ConfigOptions.key("warehouse")
          .stringType()
          .noDefaultValue()
          .withDescription(
              "Instead of 'impl': a warehouse of the catalog's first version, where database db"
                  + " is the directory <warehouse>/db, table db.t the Lance table"
                  + " <warehouse>/db/t.lance and the databases are listed in"
                  + " <warehouse>/_databases.lance. Other engines do not see its databases; see"
                  + " docs/sql.md for moving its tables to a namespace.");

  public static final ConfigOption<String> DEFAULT_DATABASE =
      ConfigOptions.key("default-database")
          .stringType()
          .defaultValue("default")
          .withDescription(
              "The catalog's current database after USE CATALOG. It always exists (on a"
                  + " namespace, it is created with its first table) and cannot be dropped.");

  /** lance-spark's spelling of the REST namespace's {@code header.*} properties. */
  static final String HEADERS_PREFIX = "headers.";

  static final String HEADER_PREFIX = "header.";

  private LanceCatalogOptions() {}
}
