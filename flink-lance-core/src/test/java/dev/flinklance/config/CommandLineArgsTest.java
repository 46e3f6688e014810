package dev.flinklance.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class CommandLineArgsTest {
  private static CommandLineArgs parse(String... args) {
    return CommandLineArgs.parse(
        args, Set.of("once"), key -> key.equals("path") || key.startsWith("storage."));
  }

  @Test
  void valuesSwitchesAndPrefixes() {
    CommandLineArgs line =
        parse("--path", "/t", "--once", "--storage.aws_region", "eu-west-1", "--storage.x", "a b");
    assertThat(line.get("path")).contains("/t");
    assertThat(line.has("once")).isTrue();
    assertThat(line.get("once")).isEmpty();
    assertThat(line.withPrefix("storage."))
        .isEqualTo(Map.of("storage.aws_region", "eu-west-1", "storage.x", "a b"));
    assertThat(line.values()).doesNotContainKey("once").containsEntry("path", "/t");
  }

  @Test
  void badArgumentsAreNamed() {
    assertThatThrownBy(() -> parse("--path")).hasMessage("missing value for --path");
    assertThatThrownBy(() -> parse("--path", "/t", "--bogus", "1"))
        .hasMessage("unknown argument '--bogus'");
    assertThatThrownBy(() -> parse("--path", "/t", "stray"))
        .hasMessage("unexpected argument 'stray' (keys start with --)");
    assertThatThrownBy(() -> parse("--once", "yes"))
        .hasMessage("--once takes no value (got 'yes')");
  }

  @Test
  void aMessageNeverRepeatsTheOtherArguments() {
    assertThatThrownBy(() -> parse("--storage.aws_secret_access_key", "s3cr3t", "stray"))
        .hasMessageNotContaining("s3cr3t");
  }
}
