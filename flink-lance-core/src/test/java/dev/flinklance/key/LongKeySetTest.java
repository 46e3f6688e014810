package dev.flinklance.key;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The primitive key set answers as a {@code HashSet<Long>} of the same values. */
class LongKeySetTest {

  @Test
  void containsExactlyItsValues() {
    Random random = new Random(7);
    List<Long> values = new ArrayList<>();
    for (int i = 0; i < 5_000; i++) {
      values.add(random.nextLong());
      values.add((long) random.nextInt(20_000) - 10_000); // sequential-ish, negative, zero
    }
    values.addAll(List.of(0L, 0L, Long.MIN_VALUE, Long.MAX_VALUE, -1L));
    Set<Long> reference = new HashSet<>(values);
    LongKeySet set = new LongKeySet(values);

    for (long probe = -30_000; probe <= 30_000; probe++) {
      assertThat(set.contains(probe)).as("%d", probe).isEqualTo(reference.contains(probe));
    }
    for (long value : values) {
      assertThat(set.contains(value)).isTrue();
    }
    for (int i = 0; i < 100_000; i++) {
      long probe = random.nextLong();
      assertThat(set.contains(probe)).isEqualTo(reference.contains(probe));
    }
  }

  @Test
  void zeroOnlyWhenGiven() {
    assertThat(new LongKeySet(List.of(1L, 2L)).contains(0)).isFalse();
    assertThat(new LongKeySet(List.of(0L)).contains(0)).isTrue();
    assertThat(new LongKeySet(List.of()).contains(0)).isFalse();
    assertThat(new LongKeySet(List.of()).contains(5)).isFalse();
  }
}
