package dev.flinklance.table;

import dev.flinklance.table.catalog.LanceCatalogOptions;
import dev.flinklance.table.source.LanceSourceOptions;
import dev.flinklance.testing.OptionsDocs;
import org.junit.jupiter.api.Test;

/** docs/options.md documents the source's and the catalog's options. */
class OptionsDocumentationTest {

  @Test
  void everyOptionHasItsRowInTheOptionsPage() throws Exception {
    OptionsDocs.assertDocumented(LanceSourceOptions.class, LanceCatalogOptions.class);
  }
}
