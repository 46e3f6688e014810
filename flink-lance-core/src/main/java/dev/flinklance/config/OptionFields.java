package dev.flinklance.config;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.LinkedHashSet;
import java.util.Set;
import org.apache.flink.annotation.Internal;
import org.apache.flink.configuration.ConfigOption;

/**
 * The options an options class declares ({@code LanceSinkOptions}, ...): read from its fields, so
 * that a new option is at once a SQL key, a catalog key and a row the docs test asks for.
 */
@Internal
public final class OptionFields {
  private OptionFields() {}

  /** The {@code public static ConfigOption} constants of {@code holder}, in declaration order. */
  public static Set<ConfigOption<?>> of(Class<?> holder) {
    Set<ConfigOption<?>> options = new LinkedHashSet<>();
    for (Field field : holder.getFields()) {
      if (Modifier.isStatic(field.getModifiers()) && field.getType() == ConfigOption.class) {
        try {
          options.add((ConfigOption<?>) field.get(null));
        } catch (IllegalAccessException e) {
          throw new IllegalStateException("cannot read option " + field, e);
        }
      }
    }
    return options;
  }
}
