package dev.flinklance.consumer;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flinklance.files.TableFiles;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import org.apache.flink.annotation.Internal;

/**
 * The streaming reads registered in a table, Paimon's consumers: one small JSON file per read,
 * {@code <table>/_consumers/<id>.json}, beside the table's own files. A file costs no table version
 * (a config key would add one per heartbeat) and holds a range of versions (a Lance tag holds one);
 * other Lance clients ignore it, which is why a read whose version another client cleaned up fails
 * naming the version.
 */
@Internal
public final class Consumers {
  /** Where the registrations live, relative to the table's root. */
  public static final String DIRECTORY = "_consumers/";

  private static final String SUFFIX = ".json";
  private static final Pattern ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,127}");
  private static final ObjectMapper JSON = new ObjectMapper();

  private final TableFiles files;

  public Consumers(TableFiles files) {
    this.files = files;
  }

  /** Why {@code consumerId} cannot name a registration file, or empty if it can. */
  public static Optional<String> invalidId(String consumerId) {
    return ID.matcher(consumerId).matches()
        ? Optional.empty()
        : Optional.of(
            "must be 1 to 128 letters, digits, '.', '_' or '-', starting with a letter or digit,"
                + " got '"
                + consumerId
                + "'");
  }

  /** The file of {@code consumerId}, relative to the table's root. */
  public static String fileOf(String consumerId) {
    return DIRECTORY + consumerId + SUFFIX;
  }

  /** Writes (or replaces) the registration. */
  public void register(ConsumerRegistration registration) throws IOException {
    files.replace(fileOf(registration.consumerId()), JSON.writeValueAsBytes(registration));
  }

  public Optional<ConsumerRegistration> read(String consumerId) throws IOException {
    Optional<byte[]> bytes = files.read(fileOf(consumerId));
    return bytes.isEmpty() ? Optional.empty() : Optional.of(parse(fileOf(consumerId), bytes.get()));
  }

  /**
   * Every registration of the table.
   *
   * @throws IOException also for a file that is not a registration: a cleanup must not guess what
   *     it protects
   */
  public List<ConsumerRegistration> list() throws IOException {
    List<ConsumerRegistration> registrations = new ArrayList<>();
    for (TableFiles.Listed file : files.list(DIRECTORY)) {
      if (!file.name().endsWith(SUFFIX)) {
        continue; // a registration being replaced on local disk
      }
      Optional<byte[]> bytes = files.read(file.name()); // empty: deleted since the listing
      if (bytes.isPresent()) {
        registrations.add(parse(file.name(), bytes.get()));
      }
    }
    return registrations;
  }

  /**
   * Deletes the registration of {@code consumerId} if it is expired at {@code nowMillis}, read
   * again just before: a read that wrote it since keeps it.
   *
   * @return whether it was deleted
   */
  public boolean deleteIfExpired(String consumerId, long nowMillis) throws IOException {
    Optional<ConsumerRegistration> current = read(consumerId);
    if (current.isEmpty() || !current.get().expired(nowMillis)) {
      return false;
    }
    files.delete(fileOf(consumerId));
    return true;
  }

  private static ConsumerRegistration parse(String name, byte[] bytes) throws IOException {
    try {
      return JSON.readValue(bytes, ConsumerRegistration.class);
    } catch (JsonProcessingException e) {
      throw new IOException(
          "consumer registration " + name + " is not one: " + e.getOriginalMessage(), e);
    }
  }
}
