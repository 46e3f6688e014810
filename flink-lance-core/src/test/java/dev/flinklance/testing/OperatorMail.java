package dev.flinklance.testing;

import java.time.Duration;
import org.apache.flink.streaming.runtime.tasks.mailbox.TaskMailbox;
import org.apache.flink.streaming.util.AbstractStreamOperatorTestHarness;

/**
 * The mailbox of an operator on Flink's operator test harness, run by the test. An operator that
 * hands work to a thread of its own gets the results back as mail (Flink's {@code
 * MailboxExecutor}); on the harness, the test's thread is the task's thread, and mail runs only
 * when the test runs it, one letter at a time: what the operator does with each result is seen step
 * by step.
 */
public final class OperatorMail {
  private static final Duration WAIT = Duration.ofSeconds(60);

  private OperatorMail() {}

  /**
   * Waits for the next letter (the result of a call the operator ran on a thread of its own) and
   * runs it. (The harness runs timers at once, in {@code setProcessingTime}: they bring no mail.)
   *
   * @param what what the letter brings, for the failure message
   * @throws AssertionError if none comes within a minute
   */
  public static void runNext(AbstractStreamOperatorTestHarness<?> harness, String what)
      throws Exception {
    TaskMailbox mailbox = harness.getTaskMailbox();
    Await.until(what, WAIT, mailbox::hasMail);
    mailbox.take(TaskMailbox.MIN_PRIORITY).run();
  }
}
