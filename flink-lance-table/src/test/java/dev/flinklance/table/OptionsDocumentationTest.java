package dev.flinklance.table;

import dev.flinklance.index.vector.VectorIndexOptions;
import dev.flinklance.source.LanceSourceOptions;
import dev.flinklance.table.catalog.LanceCatalogOptions;
import dev.flinklance.table.lookup.LanceLookupOptions;
import dev.flinklance.table.vector.VectorSearchOptions;
import dev.flinklance.testing.OptionsDocs;
import org.junit.jupiter.api.Test;

/**
 * docs/options.md documents the source's, the vector search's, the index build's, the lookup join's
 * and the catalog's options.
 */
class OptionsDocumentationTest {

  @Test
  void everyOptionHasItsRowInTheOptionsPage() throws Exception {
    OptionsDocs.assertDocumented(
        LanceSourceOptions.class,
        VectorSearchOptions.class,
        VectorIndexOptions.class,
        LanceLookupOptions.class,
        LanceCatalogOptions.class);
  }
}
