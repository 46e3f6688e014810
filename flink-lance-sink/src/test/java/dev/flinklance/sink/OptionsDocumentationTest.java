package dev.flinklance.sink;

import dev.flinklance.access.LanceDatasetOptions;
import dev.flinklance.sink.dynamic.DynamicLanceSinkOptions;
import dev.flinklance.testing.OptionsDocs;
import org.junit.jupiter.api.Test;

/** docs/options.md documents every option the sink reads, with its default and description. */
class OptionsDocumentationTest {

  @Test
  void everyOptionHasItsRowInTheOptionsPage() throws Exception {
    OptionsDocs.assertDocumented(
        LanceDatasetOptions.class, LanceSinkOptions.class, DynamicLanceSinkOptions.class);
  }
}
