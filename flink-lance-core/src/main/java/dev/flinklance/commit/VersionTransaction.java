package dev.flinklance.commit;

import dev.flinklance.commit.VersionChange.Kind;
import dev.flinklance.errors.LanceErrors;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.flink.annotation.Internal;
import org.lance.Dataset;
import org.lance.FragmentMetadata;
import org.lance.Transaction;
import org.lance.fragment.DataFile;
import org.lance.operation.Operation;
import org.lance.operation.Overwrite;
import org.lance.operation.Restore;
import org.lance.operation.Rewrite;

/**
 * One version's transaction, as far as lance-core 7.0.0 reads it back: the one way the connector
 * reads a transaction. Lance cannot read back the transaction of a compaction of a table with an
 * index ({@link LanceErrors#isUnreadableTransaction}: its JNI layer builds the rewritten indexes
 * with the wrong constructor), and a reader that did not expect it stopped at that version for
 * good. Such a version is a Rewrite without properties.
 *
 * @param operation Lance's name of the operation ("Append", "Rewrite", ...)
 * @param kind how the version's rows relate to those of the version before
 * @param properties the transaction properties (a sink's {@link CommitStamp}), empty if none
 * @param rewrittenFiles for a Rewrite, the data files of its new fragments; for one Lance cannot
 *     read, every data file of the version (the new ones among them); empty for other operations
 * @param readBack false for a Rewrite whose transaction Lance cannot read
 */
@Internal
public record VersionTransaction(
    String operation,
    Kind kind,
    Map<String, String> properties,
    Set<String> rewrittenFiles,
    boolean readBack) {

  public VersionTransaction {
    properties = Map.copyOf(properties);
    rewrittenFiles = Set.copyOf(rewrittenFiles);
  }

  /**
   * The transaction of the version {@code at} is checked out at; empty if the version has none.
   *
   * @throws RuntimeException as Lance does (also undeclared IOExceptions) for anything else
   */
  public static Optional<VersionTransaction> of(Dataset at) {
    Optional<Transaction> transaction;
    try {
      transaction = at.readTransaction();
    } catch (RuntimeException e) {
      if (!LanceErrors.isUnreadableTransaction(e)) {
        throw e;
      }
      Set<String> files =
          at.getFragments().stream()
              .flatMap(fragment -> dataFiles(fragment.metadata()))
              .collect(Collectors.toSet());
      return Optional.of(new VersionTransaction("Rewrite", Kind.REWRITE, Map.of(), files, false));
    }
    if (transaction.isEmpty()) {
      return Optional.empty();
    }
    try (Transaction txn = transaction.get()) {
      Operation operation = txn.operation();
      return Optional.of(
          new VersionTransaction(
              operation.name(),
              kindOf(operation),
              txn.transactionProperties().orElse(Map.of()),
              operation instanceof Rewrite rewrite ? newFiles(rewrite) : Set.of(),
              true));
    }
  }

  private static Kind kindOf(Operation operation) {
    if (operation instanceof Rewrite) {
      return Kind.REWRITE;
    }
    if (operation instanceof Overwrite || operation instanceof Restore) {
      return Kind.REPLACE;
    }
    return Kind.ROWS;
  }

  private static Set<String> newFiles(Rewrite rewrite) {
    return rewrite.groups().stream()
        .flatMap(group -> group.newFragments().stream())
        .flatMap(VersionTransaction::dataFiles)
        .collect(Collectors.toSet());
  }

  private static java.util.stream.Stream<String> dataFiles(FragmentMetadata fragment) {
    return fragment.getFiles().stream().map(DataFile::getPath);
  }
}
