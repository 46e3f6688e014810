package dev.flinklance.namespace;

import dev.flinklance.arrow.Allocators;
import dev.flinklance.errors.LanceDatasetException;
import dev.flinklance.secrets.Secrets;
import java.io.Serializable;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.flink.annotation.Internal;
import org.lance.namespace.LanceNamespace;

/**
 * How to reach a Lance Namespace: its implementation ({@code dir}, {@code rest} or a class name)
 * and the properties it is initialized with. Serializable, so that a task manager can connect to
 * the same namespace as the catalog that planned the job and ask it for a table's current storage
 * options.
 *
 * <p>Each JVM connects once per connection ({@link #client}); every call goes through a {@link
 * DeadlineNamespace}, because lance-core's REST client has no timeout of its own.
 */
@Internal
public final class NamespaceConnection implements Serializable {
  private static final long serialVersionUID = 1L;

  private static final Map<NamespaceConnection, LanceNamespace> CLIENTS = new ConcurrentHashMap<>();

  private final String impl;
  private final Map<String, String> properties;
  private final Duration timeout;

  /**
   * @param properties what the namespace implementation reads ({@code root}, {@code uri}, {@code
   *     header.*}, {@code storage.*}, ...)
   * @param timeout how long one call to the namespace may take
   */
  public NamespaceConnection(String impl, Map<String, String> properties, Duration timeout) {
    this.impl = Objects.requireNonNull(impl, "impl");
    this.properties = Map.copyOf(new TreeMap<>(properties));
    this.timeout = Objects.requireNonNull(timeout, "timeout");
    Secrets.remember(this.properties);
  }

  public String impl() {
    return impl;
  }

  public Map<String, String> properties() {
    return properties;
  }

  public Duration timeout() {
    return timeout;
  }

  /** A task manager learns the connection's secrets by deserializing it: remember them there. */
  private Object readResolve() {
    Secrets.remember(properties);
    return this;
  }

  /**
   * The namespace, connected on first use in this JVM and shared afterwards (the connection lives
   * as long as the JVM: a namespace client holds no more than an HTTP pool or a directory handle).
   *
   * @throws LanceDatasetException naming the namespace if it cannot be reached within the timeout
   *     or the implementation is unknown
   */
  public LanceNamespace client() {
    return CLIENTS.computeIfAbsent(this, NamespaceConnection::connect);
  }

  private LanceNamespace connect() {
    LanceNamespace connected =
        DeadlineNamespace.call(
            this,
            "connect",
            () -> LanceNamespace.connect(impl, properties, Allocators.forTables()));
    return new DeadlineNamespace(this, connected);
  }

  /**
   * Where the namespace is, for messages: {@code rest} at its {@code uri}, {@code dir} at its
   * {@code root}, without credentials.
   */
  @Override
  public String toString() {
    String where = properties.getOrDefault("uri", properties.get("root"));
    return "Lance namespace '"
        + impl
        + "'"
        + (where == null ? "" : " at " + Secrets.redactUri(where));
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof NamespaceConnection other
        && impl.equals(other.impl)
        && properties.equals(other.properties)
        && timeout.equals(other.timeout);
  }

  @Override
  public int hashCode() {
    return Objects.hash(impl, properties, timeout);
  }
}
