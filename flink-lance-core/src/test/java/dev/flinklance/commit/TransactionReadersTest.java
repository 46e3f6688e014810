package dev.flinklance.commit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flinklance.testing.Repository;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every reader of a version's transaction goes through {@link VersionTransaction}: a direct {@code
 * readTransaction()} fails for good at a compaction of an indexed table (lance-core 7.0.0), which
 * once stopped every streaming read of such a table.
 */
class TransactionReadersTest {

  @Test
  void onlyVersionTransactionReadsTransactions() throws IOException {
    List<String> readers;
    try (Stream<Path> files = Files.walk(Repository.root())) {
      readers =
          files
              .filter(file -> file.toString().endsWith(".java"))
              .filter(file -> file.toString().contains("/src/main/java/"))
              .filter(file -> !file.getFileName().toString().equals("VersionTransaction.java"))
              .filter(TransactionReadersTest::readsTransaction)
              .map(file -> Repository.root().relativize(file).toString())
              .toList();
    }
    assertThat(readers).isEmpty();
  }

  private static boolean readsTransaction(Path file) {
    try {
      return Files.readString(file).contains(".readTransaction(");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
