package dev.flinklance.namespace;

import dev.flinklance.secrets.Secrets;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.flink.annotation.Internal;
import org.lance.namespace.LanceNamespace;
import org.lance.namespace.errors.ErrorFactory;
import org.lance.namespace.errors.LanceNamespaceException;
import org.lance.namespace.model.CreateNamespaceRequest;
import org.lance.namespace.model.CreateNamespaceResponse;
import org.lance.namespace.model.DeclareTableRequest;
import org.lance.namespace.model.DeclareTableResponse;
import org.lance.namespace.model.DeregisterTableRequest;
import org.lance.namespace.model.DeregisterTableResponse;
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
import org.lance.namespace.model.NamespaceExistsRequest;
import org.lance.namespace.model.RegisterTableRequest;
import org.lance.namespace.model.RegisterTableResponse;
import org.lance.namespace.model.TableExistsRequest;

/**
 * A namespace whose every call fails after the connection's timeout instead of hanging: lance-core
 * 7.0.0's {@code RestNamespace} waits for minutes on an endpoint that accepts connections and never
 * answers. A call that times out is left running on its daemon thread (a native call cannot be
 * interrupted), and the caller gets a {@link NamespaceException} naming the namespace. What the
 * namespace answers reaches the caller with every credential masked.
 *
 * <p>Lance's native code calls {@link #describeTable} of the client a dataset was opened with to
 * refresh vended credentials, so the deadline covers those calls too.
 */
@Internal
final class DeadlineNamespace implements LanceNamespace {
  private static final AtomicInteger THREADS = new AtomicInteger();
  private static final ExecutorService CALLS =
      Executors.newCachedThreadPool(
          task -> {
            Thread thread = new Thread(task, "lance-namespace-call-" + THREADS.incrementAndGet());
            thread.setDaemon(true);
            return thread;
          });

  private final NamespaceConnection connection;
  private final LanceNamespace namespace;

  DeadlineNamespace(NamespaceConnection connection, LanceNamespace namespace) {
    this.connection = connection;
    this.namespace = namespace;
  }

  /**
   * Runs {@code call} with the connection's timeout. Errors the namespace answers with are thrown
   * as they are; anything else becomes a {@link NamespaceException}.
   */
  static <T> T call(NamespaceConnection connection, String what, Callable<T> call) {
    Future<T> result = CALLS.submit(call);
    try {
      return result.get(connection.timeout().toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      result.cancel(true);
      throw new NamespaceException(
          connection,
          what + " got no answer within " + connection.timeout().toSeconds() + " s",
          null);
    } catch (InterruptedException e) {
      result.cancel(true);
      Thread.currentThread().interrupt();
      throw new NamespaceException(connection, what + " was interrupted", e);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof LanceNamespaceException answer) {
        throw scrubbed(answer);
      }
      throw new NamespaceException(connection, "cannot " + what, cause);
    }
  }

  /**
   * The namespace's answer as the same type (callers tell "not found" from "already exists" by it),
   * with every credential masked: a service's error may echo the request's headers, whose values
   * are the connection's secrets ({@code "unauthorized: Bearer <token>"}).
   */
  private static LanceNamespaceException scrubbed(LanceNamespaceException answer) {
    if (Secrets.scrub(answer) == answer) {
      return answer;
    }
    LanceNamespaceException copy =
        ErrorFactory.fromErrorCode(
            answer.getCode(),
            Secrets.redact(answer.getMessage()),
            Secrets.redact(answer.getDetail()),
            Secrets.redact(answer.getInstance()));
    copy.setStackTrace(answer.getStackTrace());
    if (answer.getCause() != null) {
      copy.initCause(Secrets.scrub(answer.getCause()));
    }
    for (Throwable suppressed : answer.getSuppressed()) {
      copy.addSuppressed(Secrets.scrub(suppressed));
    }
    return copy;
  }

  private <T> T call(String what, Callable<T> call) {
    return call(connection, what, call);
  }

  @Override
  public void initialize(java.util.Map<String, String> properties, BufferAllocator allocator) {
    throw new IllegalStateException("already initialized");
  }

  @Override
  public String namespaceId() {
    return namespace.namespaceId();
  }

  @Override
  public ListNamespacesResponse listNamespaces(ListNamespacesRequest request) {
    return call("list namespaces", () -> namespace.listNamespaces(request));
  }

  @Override
  public DescribeNamespaceResponse describeNamespace(DescribeNamespaceRequest request) {
    return call(
        "describe namespace " + request.getId(), () -> namespace.describeNamespace(request));
  }

  @Override
  public CreateNamespaceResponse createNamespace(CreateNamespaceRequest request) {
    return call("create namespace " + request.getId(), () -> namespace.createNamespace(request));
  }

  @Override
  public DropNamespaceResponse dropNamespace(DropNamespaceRequest request) {
    return call("drop namespace " + request.getId(), () -> namespace.dropNamespace(request));
  }

  @Override
  public void namespaceExists(NamespaceExistsRequest request) {
    call(
        "check namespace " + request.getId(),
        () -> {
          namespace.namespaceExists(request);
          return null;
        });
  }

  @Override
  public ListTablesResponse listTables(ListTablesRequest request) {
    return call("list the tables of " + request.getId(), () -> namespace.listTables(request));
  }

  @Override
  public DescribeTableResponse describeTable(DescribeTableRequest request) {
    return call("describe table " + request.getId(), () -> namespace.describeTable(request));
  }

  @Override
  public DeclareTableResponse declareTable(DeclareTableRequest request) {
    return call("declare table " + request.getId(), () -> namespace.declareTable(request));
  }

  @Override
  public RegisterTableResponse registerTable(RegisterTableRequest request) {
    return call("register table " + request.getId(), () -> namespace.registerTable(request));
  }

  @Override
  public void tableExists(TableExistsRequest request) {
    call(
        "check table " + request.getId(),
        () -> {
          namespace.tableExists(request);
          return null;
        });
  }

  @Override
  public DropTableResponse dropTable(DropTableRequest request) {
    return call("drop table " + request.getId(), () -> namespace.dropTable(request));
  }

  @Override
  public DeregisterTableResponse deregisterTable(DeregisterTableRequest request) {
    return call("deregister table " + request.getId(), () -> namespace.deregisterTable(request));
  }
}
