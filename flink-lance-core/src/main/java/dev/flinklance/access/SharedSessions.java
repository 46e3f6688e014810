package dev.flinklance.access;

import dev.flinklance.secrets.Secrets;
import java.lang.ref.Cleaner;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;
import org.apache.flink.annotation.Internal;
import org.lance.Dataset;
import org.lance.Session;

/**
 * One Lance session per table in a JVM (its location, storage options and cache limits), shared by
 * the handles the connector opens on it. A session's caches (manifests, deletion files, data file
 * metadata, index pages) fill with what its handles read, up to its limits: with a session per
 * handle, a TaskManager running a job's committer, compaction, changelog read and lookup join on
 * one table held that many times the limits, filled over half an hour of new versions (issue 32's
 * soak: 16 handles on its long-lived TaskManager). Shared, a table's handles read each manifest and
 * file's metadata once, and its caches stay within its limits once. A table dropped and created
 * again at the same location is read as it is now, not from the old one's cache entries, while a
 * handle of the old one keeps the session open ({@code SharedSessionsTest}).
 *
 * <p>A session is closed once no handle opened with it is reachable (a {@link Cleaner} counts
 * them); a handle still using it keeps working after that (Lance counts its own references), and
 * the next open starts a new one.
 */
@Internal
final class SharedSessions {
  /**
   * Its thread has no context class loader: one inherited from a job's task thread would keep the
   * job's class loader, and this class with its cleaner, alive after the job (a connector in the
   * job jar).
   */
  private static final Cleaner CLEANER =
      Cleaner.create(
          cleaning -> {
            Thread thread = new Thread(cleaning, "lance-shared-sessions-cleaner");
            thread.setDaemon(true);
            thread.setContextClassLoader(null);
            return thread;
          });

  private static final Map<Key, Shared> SESSIONS = new HashMap<>();

  /** What a session is shared by. */
  record Key(String location, Map<String, String> storageOptions, SessionCaches caches) {
    @Override
    public String toString() { // never the storage options: they hold secrets
      return Secrets.redactUri(location) + " " + caches;
    }
  }

  private static final class Shared {
    final Session session;
    int handles;

    Shared(Session session) {
      this.session = session;
    }
  }

  private SharedSessions() {}

  /** Opens a handle with the table's shared session. */
  static Dataset open(Key key, Function<Session, Dataset> open) {
    Shared shared = acquire(key);
    Dataset dataset;
    try {
      dataset = open.apply(shared.session);
    } catch (RuntimeException | Error e) {
      release(key, shared);
      throw e;
    }
    CLEANER.register(dataset, () -> release(key, shared));
    return dataset;
  }

  /** Whether a session is open for the key: for tests. */
  static synchronized boolean holds(Key key) {
    return SESSIONS.containsKey(key);
  }

  private static synchronized Shared acquire(Key key) {
    Shared shared =
        SESSIONS.computeIfAbsent(
            key,
            k ->
                new Shared(
                    Session.builder()
                        .metadataCacheSizeBytes(k.caches().metadataBytes())
                        .indexCacheSizeBytes(k.caches().indexBytes())
                        .build()));
    shared.handles++;
    return shared;
  }

  private static synchronized void release(Key key, Shared shared) {
    if (--shared.handles == 0) {
      SESSIONS.remove(key, shared);
      shared.session.close();
    }
  }
}
