package dev.flinklance.connector;

import java.net.URI;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * Runs in a fresh JVM whose class path is one shaded connector jar (plus this class): the AWS SDK
 * S3 client the compactor writes its side files with, set up as the compactor sets it up, puts an
 * object and lists the bucket at the given endpoint. Prints one line the packaging test compares.
 */
public final class ShadedS3Smoke {
  private ShadedS3Smoke() {}

  public static void main(String[] args) {
    try (S3Client s3 =
        S3Client.builder()
            .httpClientBuilder(UrlConnectionHttpClient.builder())
            .credentialsProvider(
                StaticCredentialsProvider.create(AwsBasicCredentials.create("key", "secret")))
            .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
            .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
            .forcePathStyle(true)
            .region(Region.US_EAST_1)
            .endpointOverride(URI.create(args[0]))
            .build()) {
      s3.putObject(b -> b.bucket("lake").key("t/side-1.bin"), RequestBody.fromString("lineage"));
      System.out.println(
          "keys="
              + s3.listObjectsV2(b -> b.bucket("lake").prefix("t/")).contents().stream()
                  .map(S3Object::key)
                  .toList());
    }
  }
}
