package dev.flinklance.table.catalog;

import dev.flinklance.dataset.LanceDatasetOptions;
import java.util.Set;
import org.apache.flink.annotation.Internal;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.table.catalog.Catalog;
import org.apache.flink.table.factories.CatalogFactory;
import org.apache.flink.table.factories.FactoryUtil;

/** {@code 'type' = 'lance'}: creates a {@link LanceCatalog}. */
@Internal
public class LanceCatalogFactory implements CatalogFactory {
  public static final String IDENTIFIER = "lance";

  @Override
  public String factoryIdentifier() {
    return IDENTIFIER;
  }

  @Override
  public Set<ConfigOption<?>> requiredOptions() {
    return Set.of(LanceCatalogOptions.WAREHOUSE);
  }

  @Override
  public Set<ConfigOption<?>> optionalOptions() {
    return Set.of(LanceCatalogOptions.DEFAULT_DATABASE);
  }

  @Override
  public Catalog createCatalog(Context context) {
    FactoryUtil.CatalogFactoryHelper helper = FactoryUtil.createCatalogFactoryHelper(this, context);
    helper.validateExcept(LanceDatasetOptions.STORAGE_PREFIX);
    return new LanceCatalog(
        context.getName(),
        helper.getOptions().get(LanceCatalogOptions.DEFAULT_DATABASE),
        new WarehouseLayout(
            helper.getOptions().get(LanceCatalogOptions.WAREHOUSE), context.getOptions()));
  }
}
