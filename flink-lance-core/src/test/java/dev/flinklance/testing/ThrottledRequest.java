package dev.flinklance.testing;

import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import java.io.IOException;
import java.io.InterruptedIOException;

/** A request whose body the server reads at no more than a given rate: a slow uplink. */
final class ThrottledRequest extends HttpServletRequestWrapper {
  private final long bytesPerSecond;

  ThrottledRequest(HttpServletRequest request, long bytesPerSecond) {
    super(request);
    this.bytesPerSecond = bytesPerSecond;
  }

  @Override
  public ServletInputStream getInputStream() throws IOException {
    ServletInputStream body = super.getInputStream();
    long start = System.nanoTime();
    return new ServletInputStream() {
      private long read;

      @Override
      public int read() throws IOException {
        byte[] one = new byte[1];
        return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
      }

      @Override
      public int read(byte[] buffer, int offset, int length) throws IOException {
        int n = body.read(buffer, offset, (int) Math.min(length, Math.max(1, bytesPerSecond / 20)));
        if (n > 0) {
          read += n;
          pace();
        }
        return n;
      }

      /** Sleeps until reading {@code read} bytes has taken as long as the rate allows. */
      private void pace() throws IOException {
        long due = start + read * 1_000_000_000L / bytesPerSecond;
        long wait = due - System.nanoTime();
        if (wait > 0) {
          try {
            Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while throttling an upload");
          }
        }
      }

      @Override
      public boolean isFinished() {
        return body.isFinished();
      }

      @Override
      public boolean isReady() {
        return body.isReady();
      }

      @Override
      public void setReadListener(ReadListener listener) {
        body.setReadListener(listener);
      }
    };
  }
}
