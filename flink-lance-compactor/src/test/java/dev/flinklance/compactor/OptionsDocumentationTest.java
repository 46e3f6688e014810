package dev.flinklance.compactor;

import dev.flinklance.testing.OptionsDocs;
import org.junit.jupiter.api.Test;

/** docs/options.md documents every compaction option with its real default and description. */
class OptionsDocumentationTest {

  @Test
  void everyCompactionOptionIsDocumented() throws Exception {
    OptionsDocs.assertDocumented(LanceCompactionOptions.class);
  }
}
