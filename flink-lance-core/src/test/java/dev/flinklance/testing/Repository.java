package dev.flinklance.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;

/** The repository's own files (docs, scripts) as tests read them, from any module's directory. */
public final class Repository {

  private Repository() {}

  /** The nearest directory above the working directory that holds {@code docs/}. */
  public static Path root() {
    Path here = Path.of("").toAbsolutePath();
    while (here != null && !Files.isDirectory(here.resolve("docs"))) {
      here = here.getParent();
    }
    assertThat(here).as("a docs/ directory above the module").isNotNull();
    return here;
  }
}
