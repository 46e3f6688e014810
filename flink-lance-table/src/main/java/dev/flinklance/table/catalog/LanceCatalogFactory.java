package dev.flinklance.table.catalog;

import dev.flinklance.access.LanceDatasetOptions;
import dev.flinklance.namespace.NamespaceConnection;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.apache.flink.annotation.Internal;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.catalog.Catalog;
import org.apache.flink.table.factories.CatalogFactory;
import org.apache.flink.table.factories.FactoryUtil;

/**
 * {@code 'type' = 'lance'}: creates a {@link LanceCatalog} on a Lance Namespace ({@code impl}), or
 * on a warehouse of the catalog's first version ({@code warehouse}).
 */
@Internal
public class LanceCatalogFactory implements CatalogFactory {
  public static final String IDENTIFIER = "lance";

  /** The catalog's own keys; every other one is a property of the namespace. */
  private static final Set<ConfigOption<?>> CATALOG_KEYS =
      Set.of(
          LanceCatalogOptions.IMPL,
          LanceCatalogOptions.PARENT,
          LanceCatalogOptions.PARENT_DELIMITER,
          LanceCatalogOptions.SINGLE_LEVEL_NS,
          LanceCatalogOptions.NAMESPACE_TIMEOUT,
          LanceCatalogOptions.DEFAULT_DATABASE,
          LanceCatalogOptions.WAREHOUSE);

  @Override
  public String factoryIdentifier() {
    return IDENTIFIER;
  }

  @Override
  public Set<ConfigOption<?>> requiredOptions() {
    return Set.of();
  }

  @Override
  public Set<ConfigOption<?>> optionalOptions() {
    Set<ConfigOption<?>> options = new HashSet<>(CATALOG_KEYS);
    options.add(LanceCatalogOptions.ROOT);
    options.add(LanceCatalogOptions.URI);
    return options;
  }

  @Override
  public Catalog createCatalog(Context context) {
    Map<String, String> options = new HashMap<>(context.getOptions());
    options.remove(FactoryUtil.PROPERTY_VERSION.key());
    Configuration config = Configuration.fromMap(options);
    String defaultDatabase = config.get(LanceCatalogOptions.DEFAULT_DATABASE);
    boolean warehouse = options.containsKey(LanceCatalogOptions.WAREHOUSE.key());
    boolean impl = options.containsKey(LanceCatalogOptions.IMPL.key());
    if (warehouse && impl) {
      throw new ValidationException(
          "A Lance catalog takes 'impl' (a Lance Namespace) or 'warehouse' (a catalog of the"
              + " first version), not both");
    }
    if (warehouse) {
      FactoryUtil.CatalogFactoryHelper helper =
          FactoryUtil.createCatalogFactoryHelper(this, context);
      helper.validateExcept(LanceDatasetOptions.STORAGE_PREFIX);
      return new LanceCatalog(
          context.getName(),
          defaultDatabase,
          new WarehouseStore(
              new WarehouseLayout(config.get(LanceCatalogOptions.WAREHOUSE), options)));
    }
    if (!impl) {
      throw new ValidationException(
          "A Lance catalog needs 'impl': 'dir' (with 'root'), 'rest' (with 'uri') or the class"
              + " name of a LanceNamespace implementation; a catalog of the first version is"
              + " 'warehouse' = ...");
    }
    return new LanceCatalog(context.getName(), defaultDatabase, namespaceStore(options, config));
  }

  private static NamespaceStore namespaceStore(Map<String, String> options, Configuration config) {
    String impl = config.get(LanceCatalogOptions.IMPL).trim();
    Map<String, String> properties = new HashMap<>();
    options.forEach(
        (key, value) -> {
          if (CATALOG_KEYS.stream().noneMatch(option -> option.key().equals(key))) {
            properties.put(
                key.startsWith(LanceCatalogOptions.HEADERS_PREFIX)
                    ? LanceCatalogOptions.HEADER_PREFIX
                        + key.substring(LanceCatalogOptions.HEADERS_PREFIX.length())
                    : key,
                value);
          }
        });
    if (impl.equals("dir")) {
      String root = properties.get(LanceCatalogOptions.ROOT.key());
      if (root == null || root.isBlank()) {
        throw new ValidationException("A Lance catalog with 'impl' = 'dir' needs 'root'");
      }
      properties.put(LanceCatalogOptions.ROOT.key(), checkedRoot(root, config));
    }
    if (impl.equals("rest") && !properties.containsKey(LanceCatalogOptions.URI.key())) {
      throw new ValidationException("A Lance catalog with 'impl' = 'rest' needs 'uri'");
    }
    List<String> parent = parent(config);
    for (String part : parent) {
      WarehouseLayout.checkName("namespace", part);
    }
    return new NamespaceStore(
        new NamespaceConnection(
            impl, properties, config.get(LanceCatalogOptions.NAMESPACE_TIMEOUT)),
        parent,
        config.get(LanceCatalogOptions.SINGLE_LEVEL_NS),
        config.get(LanceCatalogOptions.DEFAULT_DATABASE),
        LanceDatasetOptions.storageOptions(options));
  }

  /** The root as every task manager reads it: absolute, and without URI syntax that moves it. */
  private static String checkedRoot(String root, Configuration config) {
    try {
      return LanceDatasetOptions.dataset(root, config).uri();
    } catch (IllegalArgumentException e) {
      throw CatalogFailures.invalid(e);
    }
  }

  private static List<String> parent(Configuration config) {
    String parent = config.get(LanceCatalogOptions.PARENT);
    if (parent == null || parent.isEmpty()) {
      return List.of();
    }
    String delimiter = config.get(LanceCatalogOptions.PARENT_DELIMITER);
    return Arrays.asList(parent.split(Pattern.quote(delimiter), -1));
  }
}
