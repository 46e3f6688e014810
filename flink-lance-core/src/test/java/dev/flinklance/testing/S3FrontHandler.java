package dev.flinklance.testing;

import dev.flinklance.testing.S3TestServer.S3Request;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Predicate;
import org.gaul.shaded.org.eclipse.jetty.server.Connector;
import org.gaul.shaded.org.eclipse.jetty.server.Request;
import org.gaul.shaded.org.eclipse.jetty.server.handler.HandlerWrapper;
import org.jclouds.blobstore.BlobStore;

/**
 * Sits in front of S3Proxy's handler: injects failures, holds create-only PUTs so that racing
 * committers meet, and on every connector but the raw one answers a create-only PUT ({@code
 * If-None-Match: *}) on an existing key with 412, as S3 does. The check and the write happen under
 * one lock per key, so of two racing create-only PUTs exactly one succeeds.
 */
final class S3FrontHandler extends HandlerWrapper {
  private static final Duration HOLD_TIMEOUT = Duration.ofSeconds(30);
  private final BlobStore blobStore;
  private final Connector raw;
  private final Map<String, ReentrantLock> keyLocks = new ConcurrentHashMap<>();
  private final Queue<S3Request> requests = new ConcurrentLinkedQueue<>();
  private final AtomicLong preconditionFailures = new AtomicLong();
  private int failuresLeft;
  private Predicate<S3Request> failureFilter = request -> false;
  private int heldLeft;
  private Predicate<S3Request> holdFilter = request -> false;
  private CountDownLatch heldTogether = new CountDownLatch(0);
  private volatile long uploadBytesPerSecond;
  private volatile long delayMillis;

  S3FrontHandler(BlobStore blobStore, Connector raw) {
    this.blobStore = blobStore;
    this.raw = raw;
  }

  synchronized void failNext(int count, Predicate<S3Request> which) {
    failuresLeft = count;
    failureFilter = which;
  }

  synchronized void holdCreateOnlyPuts(int count, Predicate<S3Request> which) {
    heldLeft = count;
    holdFilter = which;
    heldTogether = new CountDownLatch(count);
  }

  void throttleUploads(long bytesPerSecond) {
    uploadBytesPerSecond = bytesPerSecond;
  }

  void delayRequests(Duration delay) {
    delayMillis = delay.toMillis();
  }

  synchronized int pendingFailures() {
    return failuresLeft;
  }

  long requestCount(Predicate<S3Request> which) {
    return requests.stream().filter(which).count();
  }

  long preconditionFailures() {
    return preconditionFailures.get();
  }

  @Override
  public void handle(
      String target, Request base, HttpServletRequest request, HttpServletResponse response)
      throws IOException, ServletException {
    S3Request s3Request = parse(base);
    requests.add(s3Request);
    delay();
    if (takeFailure(s3Request)) {
      reject(base, response, 503, "SlowDown", "Injected failure: please reduce your request rate.");
      return;
    }
    HttpServletRequest forwarded =
        uploadBytesPerSecond > 0 && "PUT".equals(s3Request.method())
            ? new ThrottledRequest(request, uploadBytesPerSecond)
            : request;
    boolean createOnly = isSimplePut(s3Request) && isCreateOnly(request);
    if (createOnly) {
      awaitOthersHeld(s3Request);
    }
    if (!createOnly || base.getHttpChannel().getConnector() == raw) {
      super.handle(target, base, forwarded, response);
      return;
    }
    ReentrantLock lock =
        keyLocks.computeIfAbsent(
            s3Request.bucket() + "/" + s3Request.key(), key -> new ReentrantLock());
    lock.lock();
    try {
      if (exists(s3Request)) {
        preconditionFailures.incrementAndGet();
        reject(
            base,
            response,
            412,
            "PreconditionFailed",
            "At least one of the pre-conditions you specified did not hold");
        return;
      }
      super.handle(target, base, forwarded, response);
    } finally {
      lock.unlock();
    }
  }

  private void delay() throws IOException {
    long millis = delayMillis;
    if (millis > 0) {
      try {
        Thread.sleep(millis);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException("interrupted while delaying a request");
      }
    }
  }

  /** Lets held create-only PUTs go on together, or after {@link #HOLD_TIMEOUT} at most. */
  private void awaitOthersHeld(S3Request request) throws IOException {
    CountDownLatch latch;
    synchronized (this) {
      if (heldLeft == 0 || !holdFilter.test(request)) {
        return;
      }
      heldLeft--;
      latch = heldTogether;
    }
    latch.countDown();
    try {
      latch.await(HOLD_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while holding a create-only PUT");
    }
  }

  private static boolean isCreateOnly(HttpServletRequest request) {
    return "*".equals(request.getHeader("If-None-Match"));
  }

  private synchronized boolean takeFailure(S3Request request) {
    if (failuresLeft > 0 && failureFilter.test(request)) {
      failuresLeft--;
      return true;
    }
    return false;
  }

  /** A PUT of a whole object (not a part of a multipart upload, which S3 never conditions). */
  private static boolean isSimplePut(S3Request request) {
    return "PUT".equals(request.method())
        && !request.key().isEmpty()
        && (request.query() == null || !request.query().contains("uploadId="));
  }

  private boolean exists(S3Request request) {
    try {
      return blobStore.blobExists(request.bucket(), request.key());
    } catch (RuntimeException e) { // no such bucket: S3Proxy answers that itself
      return false;
    }
  }

  private static S3Request parse(Request base) {
    String path = base.getHttpURI().getDecodedPath();
    String withoutSlash = path == null ? "" : path.startsWith("/") ? path.substring(1) : path;
    int slash = withoutSlash.indexOf('/');
    String bucket = slash < 0 ? withoutSlash : withoutSlash.substring(0, slash);
    String key = slash < 0 ? "" : withoutSlash.substring(slash + 1);
    return new S3Request(base.getMethod(), bucket, key, base.getQueryString());
  }

  /**
   * Answers with an S3 error document. Reads the request body first: a client still sending it
   * would otherwise see a reset connection instead of the answer.
   */
  private static void reject(
      Request base, HttpServletResponse response, int status, String code, String message)
      throws IOException {
    try (InputStream body = base.getInputStream()) {
      body.transferTo(OutputStream.nullOutputStream());
    }
    response.setStatus(status);
    response.setContentType("application/xml");
    byte[] document =
        ("<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>"
                + code
                + "</Code><Message>"
                + message
                + "</Message><RequestId>4442587FB7D0A2F9</RequestId></Error>")
            .getBytes(StandardCharsets.UTF_8);
    response.setContentLength(document.length);
    response.getOutputStream().write(document);
    base.setHandled(true);
  }
}
