package dev.flinklance.namespace;

import dev.flinklance.access.TableRef;
import dev.flinklance.secrets.Secrets;
import java.io.Serializable;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.flink.annotation.Internal;
import org.lance.namespace.model.DescribeTableRequest;
import org.lance.namespace.model.DescribeTableResponse;

/**
 * A table as a Lance Namespace serves it: the namespace and the table's id there. Its storage
 * options are the namespace's to give ({@code describeTable} with {@code vend_credentials}), and
 * may be temporary credentials that say when they expire ({@code expires_at_millis}): {@link
 * #storageOptions} asks again when the ones it has are about to, so every Lance call that takes
 * storage options gets valid ones, on the client and on every task manager.
 *
 * <p>Datasets opened through the namespace ({@link TableRef#open}) are refreshed by Lance itself,
 * which calls the namespace's {@code describeTable} when the credentials it holds expire (measured
 * with lance-core 7.0.0).
 */
@Internal
public final class NamespaceTable implements Serializable {
  private static final long serialVersionUID = 1L;

  /** The storage option that says when vended credentials expire, in epoch milliseconds. */
  public static final String EXPIRES_AT_MILLIS = "expires_at_millis";

  /** Ask again at the latest this long before vended credentials expire. */
  private static final long REFRESH_MARGIN_MILLIS = 60_000;

  private final NamespaceConnection namespace;
  private final List<String> id;

  private transient volatile Vended vended;

  private record Vended(Map<String, String> options, long refreshAtMillis) {}

  public NamespaceTable(NamespaceConnection namespace, List<String> id) {
    this.namespace = Objects.requireNonNull(namespace, "namespace");
    this.id = List.copyOf(id);
  }

  public NamespaceConnection namespace() {
    return namespace;
  }

  public List<String> id() {
    return id;
  }

  /** The table as the namespace describes it now, with vended credentials if it has any. */
  public DescribeTableResponse describe() {
    return namespace
        .client()
        .describeTable(new DescribeTableRequest().id(id).vendCredentials(true));
  }

  /**
   * The storage options the namespace vends for the table (empty if none), asked again when they
   * are about to expire: at the latest a minute before, and half-way through a shorter validity.
   */
  public Map<String, String> storageOptions() {
    Vended current = vended;
    if (current == null || System.currentTimeMillis() >= current.refreshAtMillis()) {
      synchronized (this) {
        current = vended;
        if (current == null || System.currentTimeMillis() >= current.refreshAtMillis()) {
          current = fetch();
          vended = current;
        }
      }
    }
    return current.options();
  }

  private Vended fetch() {
    long now = System.currentTimeMillis();
    Map<String, String> options = describe().getStorageOptions();
    options = options == null ? Map.of() : Map.copyOf(options);
    Secrets.remember(options);
    String expiresAt = options.get(EXPIRES_AT_MILLIS);
    if (expiresAt == null) {
      return new Vended(options, Long.MAX_VALUE);
    }
    long expiry = Long.parseLong(expiresAt.trim());
    long margin = Math.min(REFRESH_MARGIN_MILLIS, Math.max(0, (expiry - now) / 2));
    return new Vended(options, expiry - margin);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof NamespaceTable other
        && namespace.equals(other.namespace)
        && id.equals(other.id);
  }

  @Override
  public int hashCode() {
    return Objects.hash(namespace, id);
  }

  @Override
  public String toString() {
    return "table " + id + " of " + namespace;
  }
}
