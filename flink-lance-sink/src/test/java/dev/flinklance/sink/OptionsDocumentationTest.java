package dev.flinklance.sink;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.configuration.ConfigOption;
import org.junit.jupiter.api.Test;

/** docs/options.md documents every option of {@link LanceSinkOptions}. */
class OptionsDocumentationTest {

  @Test
  void everyOptionHasARowInTheOptionsPage() throws Exception {
    String page = Files.readString(Path.of("..", "docs", "options.md"));
    List<ConfigOption<?>> options = new ArrayList<>();
    for (Field field : LanceSinkOptions.class.getFields()) {
      if (Modifier.isStatic(field.getModifiers()) && field.getType() == ConfigOption.class) {
        options.add((ConfigOption<?>) field.get(null));
      }
    }
    assertThat(options).hasSizeGreaterThan(5);
    for (ConfigOption<?> option : options) {
      assertThat(page).as("row for %s", option.key()).contains("| `" + option.key() + "` |");
    }
  }
}
