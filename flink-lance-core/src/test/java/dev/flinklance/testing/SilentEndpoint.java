package dev.flinklance.testing;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** A port on 127.0.0.1 that accepts TCP connections and never reads from or answers them. */
public final class SilentEndpoint implements AutoCloseable {
  private final ServerSocket socket;
  private final List<Socket> held = new CopyOnWriteArrayList<>();
  private final Thread acceptor;

  public SilentEndpoint() throws IOException {
    socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    acceptor = new Thread(this::acceptForever, "silent-endpoint-" + socket.getLocalPort());
    acceptor.setDaemon(true);
    acceptor.start();
  }

  public int port() {
    return socket.getLocalPort();
  }

  private void acceptForever() {
    while (!socket.isClosed()) {
      try {
        held.add(socket.accept());
      } catch (IOException e) {
        return; // closed
      }
    }
  }

  @Override
  public void close() throws IOException {
    socket.close();
    for (Socket connection : held) {
      connection.close();
    }
  }
}
