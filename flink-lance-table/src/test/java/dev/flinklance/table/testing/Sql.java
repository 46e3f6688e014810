package dev.flinklance.table.testing;

import dev.flinklance.testing.ChangeStream;
import dev.flinklance.testing.Failures;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.table.annotation.DataTypeHint;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.functions.ScalarFunction;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

/** TableEnvironments on the test MiniCluster and small helpers to run SQL in them. */
public final class Sql {

  private Sql() {}

  /** Starts a query's job: rows as Flink SQL prints them ({@code +I[1, a]}). */
  public static ChangeStream changes(TableResult result) {
    return ChangeStream.start(result.collect(), result.getJobClient().orElseThrow(), Row::toString);
  }

  public static TableEnvironment batch() {
    return create(EnvironmentSettings.newInstance().inBatchMode(), new Configuration());
  }

  /** Streaming, checkpointing every {@code checkpointInterval}. */
  public static TableEnvironment streaming(Duration checkpointInterval) {
    Configuration config = new Configuration();
    config.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, checkpointInterval);
    return create(EnvironmentSettings.newInstance().inStreamingMode(), config);
  }

  /**
   * A session as Flink's SQL client opens one: {@code config} holds what {@code SET} statements set
   * before its first other statement, the runtime mode among them (streaming unless set).
   */
  public static TableEnvironment session(Configuration config) {
    return create(EnvironmentSettings.newInstance(), config);
  }

  /** Restarts a failed job once. */
  public static void restartOnce(TableEnvironment env) {
    Configuration config = env.getConfig().getConfiguration();
    config.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
    config.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 1);
    config.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(10));
  }

  private static TableEnvironment create(EnvironmentSettings.Builder settings, Configuration conf) {
    TableEnvironment env = TableEnvironment.create(settings.withConfiguration(conf).build());
    env.createTemporarySystemFunction("vec", Vec.class);
    env.createTemporarySystemFunction("fail_once", FailOnce.class);
    return env;
  }

  /** Runs a statement (DDL or DML) and waits for it to finish. */
  public static void exec(TableEnvironment env, String statement) {
    try {
      env.executeSql(statement).await();
    } catch (Exception e) {
      throw new IllegalStateException("failed: " + statement, e);
    }
  }

  public static List<Row> query(TableEnvironment env, String query) {
    List<Row> rows = new ArrayList<>();
    TableResult result = env.executeSql(query);
    try (CloseableIterator<Row> it = result.collect()) {
      it.forEachRemaining(rows::add);
    } catch (Exception e) {
      throw new IllegalStateException("failed: " + query, e);
    }
    return rows;
  }

  /** Rows as strings, for order-insensitive exact comparisons. */
  public static List<String> queryStrings(TableEnvironment env, String query) {
    return query(env, query).stream().map(Row::toString).toList();
  }

  /** {@code vec(seed, dim)}: a deterministic embedding of {@code dim} floats. */
  public static class Vec extends ScalarFunction {
    public @DataTypeHint("ARRAY<FLOAT NOT NULL>") float[] eval(long seed, int dim) {
      float[] vector = new float[dim];
      for (int i = 0; i < dim; i++) {
        vector[i] = seed + i / 1000f;
      }
      return vector;
    }
  }

  /**
   * {@code fail_once(token, value, at)}: returns {@code value}, and fails the job the first time
   * (per token) it sees {@code at}.
   */
  public static class FailOnce extends ScalarFunction {
    public long eval(String token, long value, long at) {
      if (value == at && Failures.fireOnce(token)) {
        throw new IllegalStateException("Injected failure at " + value);
      }
      return value;
    }
  }
}
