package dev.flinklance.table.testing;

import dev.flinklance.testing.S3TestServer;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Moves the tables and warehouses of documentation SQL to places a test can use: the value of every
 * {@code 'path'}, {@code 'warehouse'} and {@code 'root'} option becomes a location of its own under
 * a directory of the test ({@code /tmp/events}, {@code file:///tmp/events}) or on the {@link
 * S3TestServer} ({@code s3://bucket/lake}). The same location in one documentation file stays one
 * location. A statement with an {@code s3://} location gets the test server's endpoint, credentials
 * and region in place of the connection options the documentation shows.
 */
public final class DocLocations {
  private static final Pattern ON_S3 = Pattern.compile("'(path|warehouse|root)'\\s*=\\s*'s3://");
  private static final Pattern LOCATION =
      Pattern.compile("'(path|warehouse|root)'(\\s*=\\s*)'([^']*)'");
  private static final String CONNECTION_KEYS =
      "aws_region|aws_endpoint|allow_http|aws_access_key_id|aws_secret_access_key|aws_session_token";
  private static final Pattern CONNECTION =
      Pattern.compile("\\s*,\\s*'storage\\.(" + CONNECTION_KEYS + ")'\\s*=\\s*'[^']*'");
  private static final Pattern LEFT_OVER = Pattern.compile("'storage\\.(" + CONNECTION_KEYS + ")'");

  private final Path directory;
  private final S3TestServer s3;
  private final String namespace;
  private final Set<String> moved = new LinkedHashSet<>();

  /**
   * @param namespace keeps the locations of one file apart from another's (two pages may show
   *     different tables at one path)
   */
  public DocLocations(Path directory, S3TestServer s3, String namespace) {
    this.directory = directory;
    this.s3 = s3;
    this.namespace = namespace;
  }

  public String rewrite(String statement) {
    String sql = statement;
    if (ON_S3.matcher(sql).find()) {
      sql = CONNECTION.matcher(sql).replaceAll("");
      if (LEFT_OVER.matcher(sql).find()) {
        throw new IllegalArgumentException(
            "cannot replace the connection options of " + statement + " (put them after the path)");
      }
    }
    Matcher location = LOCATION.matcher(sql);
    StringBuilder out = new StringBuilder();
    while (location.find()) {
      location.appendReplacement(
          out,
          Matcher.quoteReplacement(
              "'" + location.group(1) + "'" + location.group(2) + moved(location.group(3))));
    }
    location.appendTail(out);
    return out.toString();
  }

  /** The test locations handed out so far, in the form the statements got them. */
  public List<String> locations() {
    return List.copyOf(moved);
  }

  /** The quoted test location of {@code uri}, followed by its storage options on s3://. */
  private String moved(String uri) {
    String location;
    String options = "";
    if (uri.startsWith("s3://")) {
      location = s3.uri(namespace + "/" + uri.substring("s3://".length()));
      StringBuilder storage = new StringBuilder();
      new TreeMap<>(s3.storageOptions())
          .forEach(
              (key, value) -> storage.append(String.format(", 'storage.%s' = '%s'", key, value)));
      options = storage.toString();
    } else if (uri.startsWith("file://")) {
      location = "file://" + local(uri.substring("file://".length()));
    } else if (!uri.contains("://")) {
      location = local(uri);
    } else {
      throw new IllegalArgumentException(
          "no test location for " + uri + " (the docs test knows local paths, file:// and s3://)");
    }
    moved.add(location);
    return "'" + location + "'" + options;
  }

  private String local(String path) {
    return directory.resolve(namespace).resolve(path.replaceFirst("^/+", "")).toString();
  }
}
