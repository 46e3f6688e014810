package dev.flinklance.files;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.stream.Stream;

/** Files beside a table on local disk. */
final class LocalTableFiles implements TableFiles {
  private final Path root;

  LocalTableFiles(Path root) {
    this.root = root;
  }

  @Override
  public void write(String name, byte[] bytes) throws IOException {
    Path file = root.resolve(name);
    Files.createDirectories(file.getParent());
    Files.write(file, bytes, StandardOpenOption.CREATE_NEW, StandardOpenOption.SYNC);
  }

  @Override
  public void replace(String name, byte[] bytes) throws IOException {
    Path file = root.resolve(name);
    Files.createDirectories(file.getParent());
    // written beside it, then moved over it: a reader never sees half a file
    Path written = file.resolveSibling("." + file.getFileName() + "." + UUID.randomUUID());
    try {
      Files.write(written, bytes, StandardOpenOption.CREATE_NEW, StandardOpenOption.SYNC);
      Files.move(
          written, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } finally {
      Files.deleteIfExists(written);
    }
  }

  @Override
  public byte[] read(String name, long offset, int length) throws IOException {
    try (RandomAccessFile file = new RandomAccessFile(root.resolve(name).toFile(), "r")) {
      byte[] bytes = new byte[length];
      file.seek(offset);
      file.readFully(bytes);
      return bytes;
    }
  }

  @Override
  public Optional<byte[]> read(String name) throws IOException {
    try {
      return Optional.of(Files.readAllBytes(root.resolve(name)));
    } catch (NoSuchFileException e) {
      return Optional.empty();
    }
  }

  @Override
  public List<Listed> list(String prefix) throws IOException {
    int slash = prefix.lastIndexOf('/');
    String directory = prefix.substring(0, slash + 1);
    String start = prefix.substring(slash + 1);
    Path dir = root.resolve(directory.isEmpty() ? "." : directory);
    List<Listed> listed = new ArrayList<>();
    if (!Files.isDirectory(dir)) {
      return listed;
    }
    try (Stream<Path> files = Files.list(dir)) {
      for (Path file : (Iterable<Path>) files::iterator) {
        String name = file.getFileName().toString();
        if (name.startsWith(start) && Files.isRegularFile(file)) {
          listed.add(new Listed(directory + name, Files.getLastModifiedTime(file).toMillis()));
        }
      }
    }
    return listed;
  }

  @Override
  public void delete(String name) throws IOException {
    try {
      Files.delete(root.resolve(name));
    } catch (NoSuchFileException e) {
      // deleted concurrently: what we wanted
    }
  }

  @Override
  public void close() {}
}
