package dev.flinklance.files;

import dev.flinklance.secrets.Secrets;
import java.io.IOException;
import java.util.List;
import java.util.Optional;

/**
 * The files beside a table whose storage client could not be built from its storage options (an
 * option the AWS SDK reads differently from Lance, say). Every call fails with that reason, so a
 * compaction that needs side files fails (and is retried) while the job that runs it carries on.
 */
final class UnreachableTableFiles implements TableFiles {
  private final String reason;
  private final RuntimeException cause;

  UnreachableTableFiles(String uri, RuntimeException cause) {
    this.reason =
        Secrets.redact(
            String.format(
                "Lance table '%s': cannot reach its row-lineage side files, consumer registrations and key files: %s",
                uri, cause.getMessage()));
    this.cause = cause;
  }

  private IOException unreachable() {
    return new IOException(reason, Secrets.scrub(cause));
  }

  @Override
  public void write(String name, byte[] bytes) throws IOException {
    throw unreachable();
  }

  @Override
  public byte[] read(String name, long offset, int length) throws IOException {
    throw unreachable();
  }

  @Override
  public void replace(String name, byte[] bytes) throws IOException {
    throw unreachable();
  }

  @Override
  public Optional<byte[]> read(String name) throws IOException {
    throw unreachable();
  }

  @Override
  public List<Listed> list(String prefix) throws IOException {
    throw unreachable();
  }

  @Override
  public void delete(String name) throws IOException {
    throw unreachable();
  }

  @Override
  public void close() {}
}
