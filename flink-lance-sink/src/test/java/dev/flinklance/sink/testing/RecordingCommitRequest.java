package dev.flinklance.sink.testing;

import org.apache.flink.api.connector.sink2.Committer.CommitRequest;

/** A commit request that remembers how the committer answered it. */
public final class RecordingCommitRequest<T> implements CommitRequest<T> {
  public enum Outcome {
    COMMITTED,
    ALREADY_COMMITTED,
    RETRY_LATER,
    FAILED
  }

  private final T committable;
  private Outcome outcome = Outcome.COMMITTED;
  private int retries;

  public RecordingCommitRequest(T committable) {
    this.committable = committable;
  }

  /** Offered again after {@link #retryLater}: as Flink does, the answer starts anew. */
  public void reoffer() {
    outcome = Outcome.COMMITTED;
  }

  public Outcome outcome() {
    return outcome;
  }

  @Override
  public T getCommittable() {
    return committable;
  }

  @Override
  public int getNumberOfRetries() {
    return retries;
  }

  @Override
  public void signalFailedWithKnownReason(Throwable t) {
    outcome = Outcome.FAILED;
  }

  @Override
  public void signalFailedWithUnknownReason(Throwable t) {
    outcome = Outcome.FAILED;
    throw new IllegalStateException("Failed to commit " + committable, t);
  }

  @Override
  public void retryLater() {
    outcome = Outcome.RETRY_LATER;
    retries++;
  }

  @Override
  public void updateAndRetryLater(T committable) {
    retryLater();
  }

  @Override
  public void signalAlreadyCommitted() {
    outcome = Outcome.ALREADY_COMMITTED;
  }
}
