package dev.flinklance.compactor.sidefile;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/** Side files of a table on local disk. */
final class LocalSideFiles implements SideFiles {
  private final Path root;

  LocalSideFiles(Path root) {
    this.root = root;
  }

  @Override
  public void write(String name, byte[] bytes) throws IOException {
    Files.write(root.resolve(name), bytes, StandardOpenOption.CREATE_NEW, StandardOpenOption.SYNC);
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
  public List<Listed> list() throws IOException {
    List<Listed> listed = new ArrayList<>();
    try (Stream<Path> files = Files.list(root)) {
      for (Path file : (Iterable<Path>) files::iterator) {
        String name = file.getFileName().toString();
        if (name.startsWith(PREFIX) && Files.isRegularFile(file)) {
          listed.add(new Listed(name, Files.getLastModifiedTime(file).toMillis()));
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
