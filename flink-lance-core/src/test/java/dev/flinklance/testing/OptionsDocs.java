package dev.flinklance.testing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flinklance.config.OptionFields;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.description.BlockElement;
import org.apache.flink.configuration.description.TextElement;
import org.apache.flink.util.TimeUtils;

/**
 * Keeps docs/options.md complete and true: every {@link ConfigOption} of the given classes has a
 * row {@code | `key` | `default` | description |} whose default and description are the option's
 * own.
 */
public final class OptionsDocs {

  private OptionsDocs() {}

  public static Path optionsPage() {
    return Repository.root().resolve("docs").resolve("options.md");
  }

  public static void assertDocumented(Class<?>... optionClasses) throws Exception {
    String page = Files.readString(optionsPage());
    List<ConfigOption<?>> options = new ArrayList<>();
    for (Class<?> optionClass : optionClasses) {
      options.addAll(OptionFields.of(optionClass));
    }
    assertThat(options).as("options found by reflection").isNotEmpty();
    for (ConfigOption<?> option : options) {
      assertThat(page)
          .as("row of option %s in docs/options.md", option.key())
          .contains(row(option));
    }
  }

  /** The row docs/options.md must carry for {@code option}. */
  public static String row(ConfigOption<?> option) {
    return String.format(
        "| `%s` | %s | %s |", option.key(), defaultOf(option), descriptionOf(option));
  }

  private static String defaultOf(ConfigOption<?> option) {
    if (!option.hasDefaultValue()) {
      return "(none)";
    }
    Object value = option.defaultValue();
    String text;
    if (value instanceof Duration duration) {
      text = TimeUtils.formatWithHighestUnit(duration);
    } else if (value instanceof Map<?, ?> map) {
      text =
          map.entrySet().stream()
              .map(e -> e.getKey() + ":" + e.getValue())
              .collect(Collectors.joining(","));
      if (text.isEmpty()) {
        return "(none)";
      }
    } else {
      text = String.valueOf(value);
    }
    return "`" + text + "`";
  }

  private static String descriptionOf(ConfigOption<?> option) {
    StringBuilder text = new StringBuilder();
    for (BlockElement block : option.description().getBlocks()) {
      if (block instanceof TextElement element) {
        text.append(element.getFormat());
      }
    }
    return text.toString();
  }
}
