package dev.flinklance.sink.bench;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.SynchronousQueue;
import org.apache.arrow.c.ArrowArrayStream;
import org.apache.arrow.c.Data;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Schema;
import org.lance.CommitBuilder;
import org.lance.Dataset;
import org.lance.Fragment;
import org.lance.FragmentMetadata;
import org.lance.Transaction;
import org.lance.WriteParams;
import org.lance.operation.Append;

/**
 * The raw baseline: lance-core alone, rows generated straight into Arrow and streamed as ONE Arrow
 * C stream into one fragment (what the sink does per checkpoint), committed with one Append. Each
 * batch gets fresh vectors: Lance may hold a batch's buffers after it asked for the next one.
 */
final class RawLance {

  /** Fills a batch with rows {@code from} (inclusive) to {@code to} (exclusive). */
  interface Filler {
    void fill(VectorSchemaRoot root, long from, long to);
  }

  private RawLance() {}

  /**
   * @param prefetch generate the next batch on a thread of its own while Lance encodes this one (as
   *     the sink's task thread does), rather than on Lance's thread when it asks for it
   * @return rows per second, creation and commit included
   */
  static double write(
      String uri,
      Schema schema,
      String storageVersion,
      long rows,
      int batchRows,
      Filler filler,
      boolean prefetch)
      throws Exception {
    long start = System.nanoTime();
    try (BufferAllocator allocator = new RootAllocator();
        Dataset created =
            Dataset.write()
                .allocator(allocator)
                .uri(uri)
                .schema(schema)
                .mode(WriteParams.WriteMode.CREATE)
                .dataStorageVersion(storageVersion)
                .execute()) {
      List<FragmentMetadata> fragments;
      try (Batches batches = new Batches(allocator, schema, rows, batchRows, filler, prefetch);
          ArrowArrayStream stream = ArrowArrayStream.allocateNew(allocator)) {
        Data.exportArrayStream(allocator, batches, stream);
        fragments =
            Fragment.write()
                .datasetUri(uri)
                .allocator(allocator)
                .data(stream)
                .dataStorageVersion(created.getLanceFileFormatVersion())
                .maxRowsPerFile(Integer.MAX_VALUE)
                .maxBytesPerFile(Long.MAX_VALUE)
                .execute();
      }
      try (Transaction append =
              new Transaction.Builder()
                  .readVersion(created.version())
                  .operation(Append.builder().fragments(fragments).build())
                  .build();
          Dataset ignored = new CommitBuilder(created).execute(append)) {
        // one commit for the whole run
      }
    }
    return rows / ((System.nanoTime() - start) / 1e9);
  }

  /** The generated rows as an Arrow stream, in batches of {@code batchRows}. */
  private static final class Batches extends ArrowReader {
    private static final VectorSchemaRoot END = new VectorSchemaRoot(List.<FieldVector>of());

    private final BufferAllocator allocator;
    private final Schema schema;
    private final long rows;
    private final int batchRows;
    private final Filler filler;
    private final ExecutorService producer;
    private final SynchronousQueue<VectorSchemaRoot> handoff = new SynchronousQueue<>();
    private Future<?> produced;
    private long next;

    Batches(
        BufferAllocator allocator,
        Schema schema,
        long rows,
        int batchRows,
        Filler filler,
        boolean prefetch) {
      super(allocator);
      this.allocator = allocator;
      this.schema = schema;
      this.rows = rows;
      this.batchRows = batchRows;
      this.filler = filler;
      this.producer = prefetch ? Executors.newSingleThreadExecutor() : null;
      if (prefetch) {
        produced = producer.submit(this::produce);
      }
    }

    private Void produce() throws InterruptedException {
      while (next < rows) {
        handoff.put(nextBatch());
      }
      handoff.put(END);
      return null;
    }

    private VectorSchemaRoot nextBatch() {
      VectorSchemaRoot batch = VectorSchemaRoot.create(schema, allocator);
      long to = Math.min(rows, next + batchRows);
      filler.fill(batch, next, to);
      next = to;
      return batch;
    }

    @Override
    public boolean loadNextBatch() throws IOException {
      VectorSchemaRoot batch;
      if (producer == null) {
        if (next >= rows) {
          return false;
        }
        batch = nextBatch();
      } else {
        try {
          batch = handoff.take();
        } catch (InterruptedException e) {
          throw new IOException(e);
        }
        if (batch == END) {
          return false;
        }
      }
      try (VectorSchemaRoot filled = batch) {
        VectorSchemaRoot root = getVectorSchemaRoot();
        for (int i = 0; i < filled.getFieldVectors().size(); i++) {
          filled.getVector(i).makeTransferPair(root.getVector(i)).transfer();
        }
        root.setRowCount(filled.getRowCount());
      }
      return true;
    }

    @Override
    public long bytesRead() {
      return 0;
    }

    @Override
    protected void closeReadSource() {
      if (producer != null) {
        produced.cancel(true);
        producer.shutdownNow();
      }
    }

    @Override
    protected Schema readSchema() {
      return schema;
    }
  }
}
