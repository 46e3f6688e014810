package dev.flinklance.testing.architecture;

import com.tngtech.archunit.core.importer.Location;
import com.tngtech.archunit.junit.LocationProvider;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;

/**
 * The classes of the module an architecture test belongs to, and no other module's: its own rules
 * run in its own build, whether the modules it depends on come as jars or as class directories (a
 * reactor build up to {@code test} resolves them to {@code target/classes}).
 */
public final class ModuleClasses {
  private ModuleClasses() {}

  /** The module's production classes: {@code target/classes} next to its test classes. */
  public static final class Main implements LocationProvider {
    @Override
    public Set<Location> get(Class<?> testClass) {
      return Set.of(Location.of(existing(testClassesOf(testClass).resolveSibling("classes"))));
    }
  }

  /** The module's test classes: the directory the architecture test itself was compiled to. */
  public static final class Tests implements LocationProvider {
    @Override
    public Set<Location> get(Class<?> testClass) {
      return Set.of(Location.of(testClassesOf(testClass)));
    }
  }

  private static Path testClassesOf(Class<?> testClass) {
    try {
      return existing(
          Path.of(testClass.getProtectionDomain().getCodeSource().getLocation().toURI()));
    } catch (URISyntaxException e) {
      throw new IllegalStateException("no class directory for " + testClass.getName(), e);
    }
  }

  private static Path existing(Path classes) {
    if (!Files.isDirectory(classes)) {
      throw new IllegalStateException(
          classes + " is not a class directory: an architecture test runs from its module's build");
    }
    return classes;
  }
}
