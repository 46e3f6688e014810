package dev.flinklance.store;

import dev.flinklance.secrets.Secrets;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.apache.flink.annotation.Internal;

/**
 * Where Lance puts the files of a table URI, for code that reaches the same files without Lance
 * (side files, tests). Lance parses a URI with a scheme as a URL (Rust's {@code url} crate): a
 * {@code file://} path is percent-decoded into a local path, while on an object store the URL's
 * path is used as the object key as it stands, percent-encoded by the URL parser ({@code a b}
 * becomes the key {@code a%20b}). A plain local path is used as it is.
 */
@Internal
public final class StoragePaths {

  /** An object store location: the bucket (or container) and the key of the table's directory. */
  public record ObjectKey(String bucket, String key) {}

  private StoragePaths() {}

  /**
   * The local directory of a table at a plain path or a {@code file://} URI.
   *
   * @throws IllegalArgumentException if the URI has another scheme
   */
  public static Path localPath(String uri) {
    int schemeEnd = uri.indexOf("://");
    if (schemeEnd < 0) {
      return Path.of(uri);
    }
    if (!uri.substring(0, schemeEnd).equalsIgnoreCase("file")) {
      throw new IllegalArgumentException("Not a local table URI: " + Secrets.redactUri(uri));
    }
    String rest = withoutQuery(uri.substring(schemeEnd + 3));
    int pathStart = rest.indexOf('/');
    return Path.of(percentDecoded(pathStart < 0 ? "/" : rest.substring(pathStart)));
  }

  /**
   * The bucket and key (without a leading or trailing {@code /}) of a table on an object store, as
   * Lance's object store writes them.
   */
  public static ObjectKey objectKey(String uri) {
    int schemeEnd = uri.indexOf("://");
    if (schemeEnd < 0) {
      throw new IllegalArgumentException("Not an object store URI: " + uri);
    }
    String rest = withoutQuery(uri.substring(schemeEnd + 3));
    int pathStart = rest.indexOf('/');
    String bucket = pathStart < 0 ? rest : rest.substring(0, pathStart);
    String path = pathStart < 0 ? "" : rest.substring(pathStart);
    return new ObjectKey(bucket, urlPathEncoded(path).replaceAll("^/+", "").replaceAll("/+$", ""));
  }

  private static String withoutQuery(String uri) {
    int query = uri.indexOf('?');
    return query < 0 ? uri : uri.substring(0, query);
  }

  /**
   * The WHATWG URL standard's path percent-encode set, which the {@code url} crate applies: C0
   * controls, space, {@code " # < > ? ` { }} and everything above {@code ~}; {@code %} is kept.
   */
  private static String urlPathEncoded(String path) {
    StringBuilder encoded = new StringBuilder();
    for (byte b : path.getBytes(StandardCharsets.UTF_8)) {
      int c = b & 0xff;
      if (c <= 0x20 || c >= 0x7f || "\"#<>?`{}".indexOf(c) >= 0) {
        encoded.append('%').append(String.format("%02X", c));
      } else {
        encoded.append((char) c);
      }
    }
    return encoded.toString();
  }

  /** {@code %XX} escapes to the UTF-8 bytes they stand for; anything else as it is. */
  public static String percentDecoded(String text) {
    if (text.indexOf('%') < 0) {
      return text;
    }
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    int i = 0;
    while (i < text.length()) {
      int high = i + 2 < text.length() ? Character.digit(text.charAt(i + 1), 16) : -1;
      int low = i + 2 < text.length() ? Character.digit(text.charAt(i + 2), 16) : -1;
      if (text.charAt(i) == '%' && high >= 0 && low >= 0) {
        bytes.write(high * 16 + low);
        i += 3;
      } else {
        int codePoint = text.codePointAt(i);
        bytes.writeBytes(Character.toString(codePoint).getBytes(StandardCharsets.UTF_8));
        i += Character.charCount(codePoint);
      }
    }
    return bytes.toString(StandardCharsets.UTF_8);
  }
}
