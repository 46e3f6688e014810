package dev.flinklance.testing;

import dev.flinklance.store.StoragePaths;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.reflect.Field;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.gaul.s3proxy.AuthenticationType;
import org.gaul.s3proxy.BlobStoreLocator;
import org.gaul.s3proxy.S3Proxy;
import org.gaul.shaded.org.eclipse.jetty.server.HttpConnectionFactory;
import org.gaul.shaded.org.eclipse.jetty.server.Server;
import org.gaul.shaded.org.eclipse.jetty.server.ServerConnector;
import org.jclouds.ContextBuilder;
import org.jclouds.blobstore.BlobStore;
import org.jclouds.blobstore.BlobStoreContext;
import org.jclouds.blobstore.domain.PageSet;
import org.jclouds.blobstore.domain.StorageMetadata;
import org.jclouds.blobstore.domain.StorageType;
import org.jclouds.blobstore.options.ListContainerOptions;
import org.jclouds.filesystem.reference.FilesystemConstants;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * An S3-compatible server on 127.0.0.1 for tests: S3Proxy over a temporary directory, with one
 * bucket ({@link #BUCKET}). It listens on three ports:
 *
 * <ul>
 *   <li>{@link #storageOptions()}: create-only PUTs ({@code If-None-Match: *}) are enforced, as on
 *       AWS S3: such a PUT on an existing key gets 412, atomically per key. Use this one unless a
 *       test is about something else.
 *   <li>{@link #rawStorageOptions()}: the same bucket as plain S3Proxy 2.6.0 serves it, ignoring
 *       {@code If-None-Match} (like some S3-compatible stores): concurrent Lance committers
 *       silently overwrite each other's versions there.
 *   <li>{@link #silentStorageOptions()}: accepts TCP connections and never answers.
 * </ul>
 *
 * <p>{@link #failNext} injects 503 answers for transient-error tests. The storage options always
 * carry {@code aws_region} and {@code aws_endpoint}, so that Lance never contacts an address
 * outside loopback (without them the AWS client asks the cloud's instance-metadata address).
 *
 * <p>A module whose tests use it declares, in test scope, {@code org.gaul:s3proxy} (version managed
 * by the parent pom) and {@code com.fasterxml.jackson.core:jackson-databind} at {@code
 * ${s3proxy.jackson.version}}: a test-jar does not bring its own dependencies along.
 *
 * <p>Use it as a static JUnit 5 extension ({@code @RegisterExtension static final S3TestServer S3 =
 * new S3TestServer();}) or on its own ({@code try (S3TestServer s3 = new S3TestServer().start())}).
 */
public final class S3TestServer implements BeforeAllCallback, AfterAllCallback, AutoCloseable {
  public static final String BUCKET = "flink-lance";
  public static final String REGION = "us-east-1";
  public static final String DEFAULT_ACCESS_KEY_ID = "flink-lance-test";
  public static final String DEFAULT_SECRET_ACCESS_KEY = "flink-lance-test-secret";
  // static: URIs stay unique across servers, for whatever caches tables by URI within a JVM
  private static final AtomicInteger URIS = new AtomicInteger();

  /** One request as the server saw it; {@code key} is the object key without the bucket. */
  public record S3Request(String method, String bucket, String key, String query) {}

  private final String accessKeyId;
  private final String secretAccessKey;
  private Path directory;
  private BlobStoreContext blobStoreContext;
  private S3Proxy proxy;
  private S3FrontHandler front;
  private int enforcingPort;
  private int rawPort;
  private SilentEndpoint silent;

  /** Key pairs of {@link #temporaryCredentials}: access key id to secret and expiry. */
  private final Map<String, TemporaryKey> temporaryKeys = new ConcurrentHashMap<>();

  private record TemporaryKey(String secret, long expiresAtMillis) {}

  public S3TestServer() {
    this(DEFAULT_ACCESS_KEY_ID, DEFAULT_SECRET_ACCESS_KEY);
  }

  /** A server that accepts only these credentials (a test can look for the secret in logs). */
  public S3TestServer(String accessKeyId, String secretAccessKey) {
    this.accessKeyId = accessKeyId;
    this.secretAccessKey = secretAccessKey;
  }

  public S3TestServer start() throws Exception {
    if (proxy != null) {
      throw new IllegalStateException("already started");
    }
    directory = Files.createTempDirectory("s3-test-server");
    Properties backend = new Properties();
    backend.setProperty(FilesystemConstants.PROPERTY_BASEDIR, directory.toString());
    // S3Proxy's own NIO.2 file store: jclouds' "filesystem" lists directories as objects, and
    // deleting one (as Lance's Dataset.drop does) retries for 10 s before giving up.
    blobStoreContext =
        ContextBuilder.newBuilder("filesystem-nio2")
            .credentials("identity", "credential")
            .overrides(backend)
            .build(BlobStoreContext.class);
    BlobStore blobStore = blobStoreContext.getBlobStore();
    blobStore.createContainerInLocation(null, BUCKET);

    proxy =
        S3Proxy.builder()
            .blobStore(blobStore)
            .endpoint(URI.create("http://127.0.0.1:0"))
            .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, accessKeyId, secretAccessKey)
            // object_store sends headers S3Proxy does not know (checksums); real S3 accepts them
            .ignoreUnknownHeaders(true)
            .build();
    proxy.setBlobStoreLocator(locator(blobStore));
    Server server = jettyServerOf(proxy);
    ServerConnector enforcing = (ServerConnector) server.getConnectors()[0];
    ServerConnector raw =
        new ServerConnector(
            server,
            new HttpConnectionFactory(
                enforcing
                    .getConnectionFactory(HttpConnectionFactory.class)
                    .getHttpConfiguration()));
    raw.setHost("127.0.0.1");
    raw.setPort(0);
    server.addConnector(raw);
    front = new S3FrontHandler(blobStore, raw);
    front.setHandler(server.getHandler());
    server.setHandler(front);
    proxy.start();
    enforcingPort = enforcing.getLocalPort();
    rawPort = raw.getLocalPort();
    silent = new SilentEndpoint();
    return this;
  }

  /**
   * The server's own key pair, and every {@link #temporaryCredentials temporary} one until it
   * expires; S3Proxy answers any other access key id with 403 InvalidAccessKeyId.
   */
  private BlobStoreLocator locator(BlobStore blobStore) {
    return (identity, container, blob) -> {
      if (identity.equals(accessKeyId)) {
        return Map.entry(secretAccessKey, blobStore);
      }
      TemporaryKey key = temporaryKeys.get(identity);
      if (key == null || System.currentTimeMillis() >= key.expiresAtMillis()) {
        return null;
      }
      return Map.entry(key.secret(), blobStore);
    };
  }

  /**
   * Storage options with a new key pair that the server accepts for {@code validity} from now, like
   * the temporary credentials a catalog service vends; {@code expires_at_millis} says when (the key
   * Lance Namespace uses for vended credentials).
   */
  public Map<String, String> temporaryCredentials(Duration validity) {
    long expiresAt = System.currentTimeMillis() + validity.toMillis();
    String id = "temporary-" + UUID.randomUUID();
    String secret = "temporary-secret-" + UUID.randomUUID();
    temporaryKeys.put(id, new TemporaryKey(secret, expiresAt));
    Map<String, String> options = new TreeMap<>(storageOptions());
    options.put("aws_access_key_id", id);
    options.put("aws_secret_access_key", secret);
    options.put("expires_at_millis", Long.toString(expiresAt));
    return options;
  }

  /** How many {@link #temporaryCredentials} were issued. */
  public int temporaryCredentialsIssued() {
    return temporaryKeys.size();
  }

  /**
   * S3Proxy 2.6.0 does not expose its Jetty server, and the enforcing front end must see each
   * request before S3Proxy does, on the same port (the AWS signature covers host and port, so a
   * forwarding proxy on another port would have to re-sign).
   */
  private static Server jettyServerOf(S3Proxy proxy) throws ReflectiveOperationException {
    Field server = S3Proxy.class.getDeclaredField("server");
    server.setAccessible(true);
    return (Server) server.get(proxy);
  }

  /** {@code s3://BUCKET/path}. */
  public String uri(String path) {
    return "s3://" + BUCKET + "/" + path;
  }

  /** A URI no earlier call in this JVM handed out: {@code s3://BUCKET/name-N}. */
  public String newUri(String name) {
    return uri(name + "-" + URIS.incrementAndGet());
  }

  /** Lance storage options for the endpoint that enforces create-only PUTs. */
  public Map<String, String> storageOptions() {
    return options(port(enforcingPort));
  }

  /** Lance storage options for the same bucket served as plain S3Proxy: If-None-Match ignored. */
  public Map<String, String> rawStorageOptions() {
    return options(port(rawPort));
  }

  /** Lance storage options for an endpoint that accepts connections and never answers. */
  public Map<String, String> silentStorageOptions() {
    return options(port(silent.port()));
  }

  /** {@code http://127.0.0.1:PORT} of the enforcing endpoint. */
  public String endpoint() {
    return "http://127.0.0.1:" + port(enforcingPort);
  }

  private Map<String, String> options(int port) {
    return Map.of(
        "aws_access_key_id", accessKeyId,
        "aws_secret_access_key", secretAccessKey,
        "aws_region", REGION,
        "aws_endpoint", "http://127.0.0.1:" + port,
        "allow_http", "true");
  }

  private int port(int port) {
    if (proxy == null) {
      throw new IllegalStateException("S3TestServer is not started");
    }
    return port;
  }

  /**
   * Answers the next {@code count} requests (on either S3 endpoint) that match {@code which} with
   * 503 SlowDown, which S3 clients treat as transient; {@code count} 0 cancels what is left. Lance
   * retries such answers itself: its object store client up to {@code client_max_retries} times
   * (default 10) per request, and opening a table tries several times more on top.
   */
  public void failNext(int count, Predicate<S3Request> which) {
    front.failNext(count, which);
  }

  public void failNext(int count) {
    failNext(count, request -> true);
  }

  /**
   * The next {@code count} create-only PUTs (on either S3 endpoint) that match {@code which} wait
   * until all of them have arrived (30 s at most), then go on together. Makes a race between
   * concurrent Lance committers deterministic: each has chosen its version before any of them
   * writes it.
   */
  public void holdCreateOnlyPuts(int count, Predicate<S3Request> which) {
    front.holdCreateOnlyPuts(count, which);
  }

  public void holdCreateOnlyPuts(int count) {
    holdCreateOnlyPuts(count, request -> true);
  }

  /**
   * The object key suffix of the manifest of {@code version}: Lance names it after u64::MAX minus
   * the version, so that the newest sorts first.
   */
  public static String manifestSuffix(long version) {
    return "_versions/" + Long.toUnsignedString(-1L - version) + ".manifest";
  }

  /**
   * Reads the body of every PUT (whole objects and multipart parts) at no more than {@code
   * bytesPerSecond}, like a slow uplink would deliver it; 0 turns the throttle off.
   */
  public void throttleUploads(long bytesPerSecond) {
    front.throttleUploads(bytesPerSecond);
  }

  /** Answers every request (on either S3 endpoint) {@code delay} late; zero turns it off. */
  public void delayRequests(Duration delay) {
    front.delayRequests(delay);
  }

  /** The file the object at {@code uri} (in {@link #BUCKET}) is kept in, or would be. */
  public Path localPath(String uri) {
    return directory.resolve(BUCKET).resolve(StoragePaths.objectKey(uri).key());
  }

  /** How many injected failures are still to come. */
  public int pendingFailures() {
    return front.pendingFailures();
  }

  /** Requests answered on the S3 endpoints since the start (including injected failures). */
  public long requestCount() {
    return requestCount(request -> true);
  }

  /** Requests matching {@code which} answered since the start. */
  public long requestCount(Predicate<S3Request> which) {
    return front.requestCount(which);
  }

  /** Requests answered 412 because the key of a create-only PUT existed. */
  public long preconditionFailures() {
    return front.preconditionFailures();
  }

  /**
   * Object keys (without the bucket) under {@code uri}, which must be in {@link #BUCKET}, as Lance
   * stores them (percent-encoded: {@link StoragePaths#objectKey}).
   */
  public List<String> keys(String uri) {
    String bucketPrefix = "s3://" + BUCKET + "/";
    if (!uri.startsWith(bucketPrefix)) {
      throw new IllegalArgumentException(uri + " is not in bucket " + BUCKET);
    }
    String prefix = StoragePaths.objectKey(uri).key() + "/";
    BlobStore blobStore = blobStoreContext.getBlobStore();
    List<String> keys = new ArrayList<>();
    String marker = null;
    do {
      ListContainerOptions options = ListContainerOptions.Builder.prefix(prefix).recursive();
      if (marker != null) {
        options.afterMarker(marker);
      }
      PageSet<? extends StorageMetadata> page = blobStore.list(BUCKET, options);
      for (StorageMetadata metadata : page) {
        if (metadata.getType() == StorageType.BLOB) {
          keys.add(metadata.getName());
        }
      }
      marker = page.getNextMarker();
    } while (marker != null);
    return keys;
  }

  /** SHA-256 of every object under {@code uri}, by key: what "left intact" means on the store. */
  public Map<String, String> digests(String uri) throws IOException {
    Map<String, String> digests = new TreeMap<>();
    BlobStore blobStore = blobStoreContext.getBlobStore();
    for (String key : keys(uri)) {
      try (InputStream content = blobStore.getBlob(BUCKET, key).getPayload().openStream()) {
        digests.put(key, TestFiles.sha256(content));
      }
    }
    return digests;
  }

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    start();
  }

  @Override
  public void afterAll(ExtensionContext context) throws Exception {
    close();
  }

  @Override
  public void close() throws Exception {
    try {
      if (silent != null) {
        silent.close();
      }
      if (proxy != null) {
        proxy.stop();
      }
      if (blobStoreContext != null) {
        blobStoreContext.close();
      }
    } finally {
      proxy = null;
      silent = null;
      blobStoreContext = null;
      deleteRecursively(directory);
    }
  }

  private static void deleteRecursively(Path root) {
    if (root == null || !Files.exists(root)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(path);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
