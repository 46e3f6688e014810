package dev.flinklance.errors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import org.junit.jupiter.api.Test;

class LanceCallsTest {
  private static final String URI = "/tmp/t.lance";

  @Test
  void anUndeclaredCheckedExceptionIsWrappedNamingTheTable() {
    assertThatThrownBy(
            () ->
                LanceCalls.run(
                    URI,
                    "cannot open the table",
                    () -> {
                      throw new IOException("LanceError(IO): connection reset");
                    }))
        .isExactlyInstanceOf(LanceDatasetException.class)
        .hasMessage(
            "Lance table '/tmp/t.lance': cannot open the table: LanceError(IO): connection reset")
        .hasCauseInstanceOf(IOException.class);
  }

  @Test
  void aPermanentFailureIsWrappedAsPermanent() {
    assertThatThrownBy(
            () ->
                LanceCalls.call(
                    URI,
                    "cannot open the table",
                    () -> {
                      throw new IllegalArgumentException("Permission denied (os error 13)");
                    }))
        .isInstanceOf(PermanentDatasetException.class);
  }

  @Test
  void aFailureThatAlreadyNamesTheTablePassesUnchanged() {
    TableReplacedException replaced = new TableReplacedException(URI, "its latest version is 1");
    assertThatThrownBy(
            () ->
                LanceCalls.call(
                    URI,
                    "cannot read",
                    () -> {
                      throw replaced;
                    }))
        .isSameAs(replaced);
  }

  @Test
  void anExpectedFailureIsAnAnswer() {
    assertThat(
            LanceCalls.callOr(
                URI,
                "cannot open the table",
                () -> {
                  throw new RuntimeException("Dataset at path t.lance was not found");
                },
                LanceErrors::isNotFound,
                "absent"))
        .isEqualTo("absent");
  }
}
