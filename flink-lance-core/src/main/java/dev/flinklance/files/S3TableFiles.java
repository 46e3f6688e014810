package dev.flinklance.files;

import dev.flinklance.store.StoragePaths;
import java.io.IOException;
import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.flink.util.TimeUtils;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ClientBuilder;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;

/**
 * Files beside a table on S3 or an S3-compatible server, reached with the table's Lance storage
 * options ({@code aws_region}, {@code aws_endpoint}, {@code aws_access_key_id}, ...), so that the
 * same {@code storage.*} keys configure both.
 */
final class S3TableFiles implements TableFiles {
  private final S3Client client;
  private final String bucket;
  private final String prefix;

  private S3TableFiles(S3Client client, String bucket, String prefix) {
    this.client = client;
    this.bucket = bucket;
    this.prefix = prefix;
  }

  static S3TableFiles of(StoragePaths.ObjectKey table, Map<String, String> storageOptions) {
    return new S3TableFiles(
        client(storageOptions), table.bucket(), table.key().isEmpty() ? "" : table.key() + "/");
  }

  private static S3Client client(Map<String, String> options) {
    UrlConnectionHttpClient.Builder http = UrlConnectionHttpClient.builder();
    option(options, "timeout").map(TimeUtils::parseDuration).ifPresent(http::socketTimeout);
    option(options, "connect_timeout")
        .map(TimeUtils::parseDuration)
        .ifPresent(http::connectionTimeout);
    S3ClientBuilder builder =
        S3Client.builder()
            .httpClientBuilder(http)
            .credentialsProvider(credentials(options))
            // checksums only where S3 requires them: S3-compatible stores often reject the
            // trailing checksums newer SDKs send by default
            .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
            .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
            .forcePathStyle(
                !Boolean.parseBoolean(
                    option(options, "virtual_hosted_style_request").orElse("false")));
    option(options, "region").map(Region::of).ifPresent(builder::region);
    option(options, "endpoint").map(URI::create).ifPresent(builder::endpointOverride);
    option(options, "client_max_retries")
        .map(Integer::parseInt)
        .ifPresent(
            retries ->
                builder.overrideConfiguration(
                    c -> c.retryStrategy(r -> r.maxAttempts(retries + 1))));
    return builder.build();
  }

  private static AwsCredentialsProvider credentials(Map<String, String> options) {
    var key = option(options, "access_key_id");
    var secret = option(options, "secret_access_key");
    if (key.isEmpty() || secret.isEmpty()) {
      return DefaultCredentialsProvider.builder().build();
    }
    var token = option(options, "session_token");
    return StaticCredentialsProvider.create(
        token.isPresent()
            ? AwsSessionCredentials.create(key.get(), secret.get(), token.get())
            : AwsBasicCredentials.create(key.get(), secret.get()));
  }

  /** A Lance S3 storage option, spelled with or without its {@code aws_} prefix. */
  private static java.util.Optional<String> option(Map<String, String> options, String name) {
    String value = options.get("aws_" + name);
    if (value == null) {
      value = options.get(name);
    }
    return java.util.Optional.ofNullable(value).map(String::trim).filter(v -> !v.isEmpty());
  }

  @Override
  public void write(String name, byte[] bytes) throws IOException {
    call(
        () ->
            client.putObject(
                r -> r.bucket(bucket).key(prefix + name).ifNoneMatch("*"),
                RequestBody.fromBytes(bytes)));
  }

  @Override
  public void replace(String name, byte[] bytes) throws IOException {
    call(
        () ->
            client.putObject(
                r -> r.bucket(bucket).key(prefix + name), RequestBody.fromBytes(bytes)));
  }

  @Override
  public Optional<byte[]> read(String name) throws IOException {
    try {
      return Optional.of(
          client.getObjectAsBytes(r -> r.bucket(bucket).key(prefix + name)).asByteArray());
    } catch (NoSuchKeyException e) {
      return Optional.empty();
    } catch (SdkException e) {
      throw failure(e);
    }
  }

  @Override
  public byte[] read(String name, long offset, int length) throws IOException {
    String range = String.format("bytes=%d-%d", offset, offset + length - 1);
    byte[] bytes =
        call(
            () ->
                client
                    .getObjectAsBytes(r -> r.bucket(bucket).key(prefix + name).range(range))
                    .asByteArray());
    if (bytes.length != length) {
      throw new IOException(
          String.format(
              "read %d bytes of s3://%s/%s%s, expected %d",
              bytes.length, bucket, prefix, name, length));
    }
    return bytes;
  }

  @Override
  public List<Listed> list(String namePrefix) throws IOException {
    ListObjectsV2Request request =
        ListObjectsV2Request.builder()
            .bucket(bucket)
            .prefix(prefix + namePrefix)
            .delimiter("/")
            .build();
    // the paginator's iteration sends the requests (and follows continuation tokens)
    return call(
        () ->
            client.listObjectsV2Paginator(request).contents().stream()
                .map(
                    object ->
                        new Listed(
                            object.key().substring(prefix.length()),
                            object.lastModified().toEpochMilli()))
                .toList());
  }

  @Override
  public void delete(String name) throws IOException {
    call(() -> client.deleteObject(r -> r.bucket(bucket).key(prefix + name)));
  }

  private <T> T call(java.util.function.Supplier<T> request) throws IOException {
    try {
      return request.get();
    } catch (SdkException e) {
      throw failure(e);
    }
  }

  private IOException failure(SdkException e) {
    return new IOException(String.format("s3://%s/%s: %s", bucket, prefix, e.getMessage()), e);
  }

  @Override
  public void close() {
    client.close();
  }
}
