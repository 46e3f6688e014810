package dev.flinklance.store;

import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.flink.annotation.Internal;

/**
 * Storage options the connector adds for tables on an object store, unless the user set them.
 *
 * <p>Lance's own defaults (object_store's 30 s request timeout, retried for up to 180 s, and Lance
 * repeating a failed listing 6 times) leave a job against an endpoint that accepts connections but
 * never answers hanging for over 20 minutes before it fails. With these, opening a table there
 * fails after about a minute (6 listings of one 10 s attempt each). The timeout applies to each
 * HTTP request, not to a whole file: Lance uploads files larger than 5 MiB in 5 MiB parts, so a
 * part needs 0.5 MiB/s to finish in time. A request that failed fast (a 503, a reset connection) is
 * still retried, with backoff, for up to 5 s; one that timed out is not.
 */
@Internal
public final class ObjectStoreDefaults {

  /** Key to value, in the units Lance parses: durations for object_store, seconds for Lance. */
  public static final Map<String, String> DEFAULTS = defaults();

  private ObjectStoreDefaults() {}

  private static Map<String, String> defaults() {
    Map<String, String> defaults = new LinkedHashMap<>();
    defaults.put("connect_timeout", "5s");
    defaults.put("timeout", "10s");
    defaults.put("client_retry_timeout", "5");
    return Collections.unmodifiableMap(defaults);
  }

  /** {@code options} plus every default whose key (in any case) the user did not set. */
  public static Map<String, String> apply(Map<String, String> options) {
    Set<String> set =
        options.keySet().stream()
            .map(key -> key.toLowerCase(Locale.ROOT))
            .collect(Collectors.toSet());
    Map<String, String> withDefaults = new HashMap<>(options);
    DEFAULTS.forEach(
        (key, value) -> {
          if (!set.contains(key)) {
            withDefaults.put(key, value);
          }
        });
    return withDefaults;
  }
}
