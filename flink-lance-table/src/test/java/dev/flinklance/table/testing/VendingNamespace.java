package dev.flinklance.table.testing;

import dev.flinklance.testing.S3TestServer;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.arrow.memory.BufferAllocator;
import org.lance.namespace.DirectoryNamespace;
import org.lance.namespace.LanceNamespace;
import org.lance.namespace.model.CreateNamespaceRequest;
import org.lance.namespace.model.CreateNamespaceResponse;
import org.lance.namespace.model.DeclareTableRequest;
import org.lance.namespace.model.DeclareTableResponse;
import org.lance.namespace.model.DescribeNamespaceRequest;
import org.lance.namespace.model.DescribeNamespaceResponse;
import org.lance.namespace.model.DescribeTableRequest;
import org.lance.namespace.model.DescribeTableResponse;
import org.lance.namespace.model.DropNamespaceRequest;
import org.lance.namespace.model.DropNamespaceResponse;
import org.lance.namespace.model.DropTableRequest;
import org.lance.namespace.model.DropTableResponse;
import org.lance.namespace.model.ListNamespacesRequest;
import org.lance.namespace.model.ListNamespacesResponse;
import org.lance.namespace.model.ListTablesRequest;
import org.lance.namespace.model.ListTablesResponse;

/**
 * A namespace that vends short-lived credentials, like a catalog service: a directory namespace on
 * the S3 test server (with the server's own key, property {@code vending.storage.*}), whose {@code
 * describeTable} and {@code declareTable} answer with a new key pair of the server that expires
 * after {@code vending.validity-ms} ({@link S3TestServer#temporaryCredentials}). A catalog uses it
 * as {@code 'impl' = 'dev.flinklance.table.testing.VendingNamespace'}, with {@code vending.server}
 * naming a server registered with {@link #register}.
 */
public class VendingNamespace implements LanceNamespace {
  private static final Map<String, S3TestServer> SERVERS = new ConcurrentHashMap<>();
  private static final AtomicInteger DESCRIBES = new AtomicInteger();

  private final DirectoryNamespace directory = new DirectoryNamespace();
  private S3TestServer server;
  private Duration validity;

  /** Makes {@code server} known to namespaces with {@code 'vending.server' = name}. */
  public static void register(String name, S3TestServer server) {
    SERVERS.put(name, server);
  }

  /** Calls of {@code describeTable} (Lance's refreshes among them) in this JVM. */
  public static int describes() {
    return DESCRIBES.get();
  }

  @Override
  public void initialize(Map<String, String> properties, BufferAllocator allocator) {
    server = SERVERS.get(properties.get("vending.server"));
    validity = Duration.ofMillis(Long.parseLong(properties.get("vending.validity-ms")));
    Map<String, String> inner = new HashMap<>();
    inner.put("root", properties.get("root"));
    properties.forEach(
        (key, value) -> {
          if (key.startsWith("storage.")) {
            inner.put(key, value);
          }
        });
    properties.forEach( // the server's own key over what the catalog passes to its tables
        (key, value) -> {
          if (key.startsWith("vending.storage.")) {
            inner.put(key.substring("vending.".length()), value);
          }
        });
    directory.initialize(inner, allocator);
  }

  @Override
  public String namespaceId() {
    return "vending";
  }

  @Override
  public ListNamespacesResponse listNamespaces(ListNamespacesRequest request) {
    return directory.listNamespaces(request);
  }

  @Override
  public DescribeNamespaceResponse describeNamespace(DescribeNamespaceRequest request) {
    return directory.describeNamespace(request);
  }

  @Override
  public CreateNamespaceResponse createNamespace(CreateNamespaceRequest request) {
    return directory.createNamespace(request);
  }

  @Override
  public DropNamespaceResponse dropNamespace(DropNamespaceRequest request) {
    return directory.dropNamespace(request);
  }

  @Override
  public ListTablesResponse listTables(ListTablesRequest request) {
    return directory.listTables(request);
  }

  @Override
  public DescribeTableResponse describeTable(DescribeTableRequest request) {
    DESCRIBES.incrementAndGet();
    DescribeTableResponse described = directory.describeTable(request);
    described.setStorageOptions(new HashMap<>(server.temporaryCredentials(validity)));
    return described;
  }

  @Override
  public DeclareTableResponse declareTable(DeclareTableRequest request) {
    DeclareTableResponse declared = directory.declareTable(request);
    declared.setStorageOptions(new HashMap<>(server.temporaryCredentials(validity)));
    return declared;
  }

  @Override
  public DropTableResponse dropTable(DropTableRequest request) {
    return directory.dropTable(request);
  }
}
