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
 * docs/options.md's option tables are generated from the {@link ConfigOption} classes: after a line
 * {@code <!-- options: <class name> -->} comes the table of that class's options, one row {@code |
 * `key` | `default` | description |} per option in declaration order, and nothing else. The module
 * tests assert each table is exactly its generated form; run them with {@code -Ddocs.update=true}
 * ({@code bin/docs-options}) to write the tables instead.
 */
public final class OptionsDocs {
  private static final String MARKER = "<!-- options: %s -->";
  private static final String HEADER = "| Key | Default | Description |\n|---|---|---|";

  private OptionsDocs() {}

  public static Path optionsPage() {
    return Repository.root().resolve("docs").resolve("options.md");
  }

  public static void assertDocumented(Class<?>... optionClasses) throws Exception {
    Path page = optionsPage();
    String text = Files.readString(page);
    String generated = text;
    for (Class<?> optionClass : optionClasses) {
      generated = withTable(generated, optionClass);
    }
    if (Boolean.getBoolean("docs.update")) {
      Files.writeString(page, generated);
      return;
    }
    assertThat(text)
        .as(
            "docs/options.md's tables of %s, as generated from the options (bin/docs-options"
                + " writes them)",
            List.of(optionClasses))
        .isEqualTo(generated);
  }

  /** {@code page} with the table after {@code optionClass}'s marker generated anew. */
  private static String withTable(String page, Class<?> optionClass) {
    String marker = String.format(MARKER, optionClass.getName());
    int at = page.indexOf(marker);
    assertThat(at)
        .as("docs/options.md has a line %s where the table of the class goes", marker)
        .isNotNegative();
    int tableStart = at + marker.length() + 1;
    int tableEnd = tableStart;
    while (tableEnd < page.length() && page.startsWith("|", tableEnd)) {
      int lineEnd = page.indexOf('\n', tableEnd);
      tableEnd = lineEnd < 0 ? page.length() : lineEnd + 1;
    }
    List<ConfigOption<?>> options = new ArrayList<>(OptionFields.of(optionClass));
    assertThat(options).as("options of %s found by reflection", optionClass).isNotEmpty();
    String table =
        HEADER
            + "\n"
            + options.stream().map(OptionsDocs::row).collect(Collectors.joining("\n"))
            + "\n";
    return page.substring(0, tableStart) + table + page.substring(tableEnd);
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
