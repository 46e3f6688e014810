package dev.flinklance.table.catalog;

import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;

/**
 * Options of {@code CREATE CATALOG ... WITH ('type' = 'lance', ...)}. The catalog also takes {@code
 * storage.*} (see {@link dev.flinklance.dataset.LanceDatasetOptions#STORAGE_PREFIX}), which it
 * passes to every table.
 */
@PublicEvolving
public final class LanceCatalogOptions {

  public static final ConfigOption<String> WAREHOUSE =
      ConfigOptions.key("warehouse")
          .stringType()
          .noDefaultValue()
          .withDescription(
              "Root of the catalog: a local path, file://, s3://, gs://, az:// or any URI Lance"
                  + " supports. Database db is the directory <warehouse>/db, table db.t the Lance"
                  + " table <warehouse>/db/t.lance.");

  public static final ConfigOption<String> DEFAULT_DATABASE =
      ConfigOptions.key("default-database")
          .stringType()
          .defaultValue("default")
          .withDescription(
              "The catalog's current database after USE CATALOG. It always exists and cannot be"
                  + " dropped.");

  private LanceCatalogOptions() {}
}
