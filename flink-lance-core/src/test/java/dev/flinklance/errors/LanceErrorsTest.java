package dev.flinklance.errors;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import org.junit.jupiter.api.Test;

/** Lance's messages that races produce, which {@link LanceErrorsContractITCase} cannot provoke. */
class LanceErrorsTest {

  /**
   * The manifest of a listed version removed before it is read (a DROP TABLE racing an open, seen
   * in a streaming read): the table is not found, rather than a permanent I/O failure that says
   * nothing of the drop.
   */
  @Test
  void aManifestRemovedWhileTheTableOpensIsNotFound() {
    IOException raced =
        new IOException(
            "LanceError(IO): Generic N/A error: Cloned error: Cloned error: LanceError(IO): Object"
                + " at location /tmp/t/customers/_versions/18446744073709551613.manifest not"
                + " found: No such file or directory (os error 2)");

    assertThat(LanceErrors.isNotFound(raced)).isTrue();
    assertThat(
            LanceErrors.isNotFound(
                new IOException(
                    "LanceError(IO): Object at location /tmp/t/data/abc.lance not found")))
        .as("a data file missing is another matter")
        .isFalse();
  }
}
