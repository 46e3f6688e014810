package dev.flinklance.secrets;

import dev.flinklance.access.TableRef;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import org.apache.flink.annotation.Internal;

/**
 * Keeps credentials out of the connector's messages and logs. Every {@link TableRef} hands its
 * secret storage option values to {@link #remember}; {@link #redact} masks them (and credentials
 * written into a URI) in any text, {@link #scrub} in an exception chain. Lance echoes a storage
 * option's value when it cannot parse it, and URIs may carry a password or a signed token, so
 * nothing that reaches a message is trusted to be clean.
 */
@Internal
public final class Secrets {
  public static final String MASK = "******";

  /** Shorter values are too likely to occur by chance in a message to be masked everywhere. */
  private static final int MIN_MASKED_LENGTH = 4;

  /**
   * Parts of storage option keys that name a credential, for AWS, Azure and GCS (object_store's
   * names and aliases) and anything else: {@code aws_secret_access_key}, {@code
   * azure_storage_account_key}, {@code google_service_account_key}, {@code
   * azure_storage_sas_token}, ...
   */
  private static final Pattern SENSITIVE_KEY =
      Pattern.compile(
          "secret|password|passwd|token|signature|credential|private_key|account_key|access_key"
              + "|master_key|sas_key|service_account_key|apikey|api_key|api-key|authorization"
              + "|(^|\\.)headers?\\.");

  /** {@code scheme://user:password@} */
  private static final Pattern URI_PASSWORD = Pattern.compile("(://[^/:@\\s]*):[^@/\\s]+@");

  /** A query parameter of a URI whose name says it carries a credential (an SAS signature). */
  private static final Pattern URI_SECRET_PARAMETER =
      Pattern.compile(
          "([?&][^=&\\s]*(?:sig|secret|password|token|credential|key)[^=&\\s]*=)[^&\\s'\"]+",
          Pattern.CASE_INSENSITIVE);

  private static final Set<String> REMEMBERED = ConcurrentHashMap.newKeySet();

  private Secrets() {}

  /**
   * Whether a storage option or namespace property with this key holds a credential (key ids are
   * not secret; every HTTP header of a namespace is taken for one).
   */
  public static boolean isSensitive(String key) {
    String lower = key.toLowerCase(Locale.ROOT);
    return SENSITIVE_KEY.matcher(lower).find() && !lower.endsWith("_id");
  }

  /** Remembers the values of the credentials among {@code storageOptions}, for this JVM. */
  public static void remember(Map<String, String> storageOptions) {
    storageOptions.forEach(
        (key, value) -> {
          if (isSensitive(key) && value != null && value.length() >= MIN_MASKED_LENGTH) {
            REMEMBERED.add(value);
            // "Bearer <token>": the token alone is just as secret
            String last = value.substring(value.lastIndexOf(' ') + 1);
            if (last.length() >= MIN_MASKED_LENGTH) {
              REMEMBERED.add(last);
            }
          }
        });
  }

  /** {@code uri} without a password or a credential in its query string. */
  public static String redactUri(String uri) {
    String withoutPassword = URI_PASSWORD.matcher(uri).replaceAll("$1:" + MASK + "@");
    return URI_SECRET_PARAMETER.matcher(withoutPassword).replaceAll("$1" + MASK);
  }

  /** {@code text} with every remembered credential and every credential in a URI masked. */
  public static String redact(String text) {
    if (text == null) {
      return null;
    }
    String redacted = text;
    for (String secret : REMEMBERED) {
      redacted = redacted.replace(secret, MASK);
    }
    return redactUri(redacted);
  }

  /**
   * {@code error} itself if no message in its chain holds a credential; otherwise a copy of the
   * chain with masked messages and the original types and stack traces.
   */
  public static Throwable scrub(Throwable error) {
    if (error == null || isClean(error)) {
      return error;
    }
    return copy(error);
  }

  private static boolean isClean(Throwable error) {
    for (Throwable t = error; t != null; t = t.getCause()) {
      // toString as a stack trace prints it: some exceptions show more there than their message
      // (a namespace error's detail and instance)
      String text = t.toString() + " " + t.getMessage();
      if (!text.equals(redact(text))) {
        return false;
      }
      for (Throwable suppressed : t.getSuppressed()) {
        if (!isClean(suppressed)) {
          return false;
        }
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return true;
  }

  private static RedactedException copy(Throwable error) {
    Throwable cause = error.getCause();
    RedactedException copy =
        new RedactedException(
            error.getClass().getName() + ": " + redact(describe(error)),
            cause == null || cause == error ? null : copy(cause));
    copy.setStackTrace(error.getStackTrace());
    for (Throwable suppressed : error.getSuppressed()) {
      copy.addSuppressed(copy(suppressed));
    }
    return copy;
  }

  /** What a stack trace shows of the exception after its class name. */
  private static String describe(Throwable error) {
    String text = error.toString();
    String prefix = error.getClass().getName();
    if (text.equals(prefix)) {
      return String.valueOf(error.getMessage());
    }
    return text.startsWith(prefix + ": ") ? text.substring(prefix.length() + 2) : text;
  }

  /** Stands in for an exception whose message held a credential; names the original type. */
  public static final class RedactedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    RedactedException(String message, Throwable cause) {
      super(message, cause);
    }
  }
}
