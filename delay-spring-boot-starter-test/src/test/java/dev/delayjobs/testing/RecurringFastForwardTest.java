package dev.delayjobs.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Import;

import dev.delayjobs.DelayedHandler;
import dev.delayjobs.DelayedJob;
import dev.delayjobs.Recurring;

/** fastForward fires the ticks of a schedule that fall within its window, one job per tick. */
@SpringBootTest
@EmbeddedRedis
class RecurringFastForwardTest {

    static class Hourly {

        final List<String> handled = new CopyOnWriteArrayList<>();

        @DelayedHandler(queue = "hourly")
        @Recurring(name = "hourly-report", fixedRate = "1h")
        void report(DelayedJob<Map<String, Object>> tick) {
            handled.add(tick.id());
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(Hourly.class)
    static class App {
    }

    @Autowired
    DelayQueueTester tester;

    @Autowired
    Hourly hourly;

    @Test
    void twoHoursFastForwardedFireTheTwoHourlyTicksOnce() {
        assertThat(tester.fastForward("hourly", Duration.ofHours(2).plusMinutes(1))).isEqualTo(2);

        await().atMost(Duration.ofSeconds(10)).until(() -> hourly.handled.size() >= 2);
        List<Instant> ticks = hourly.handled.stream()
                .map(id -> Instant.ofEpochMilli(Long.parseLong(id.substring("hourly-report@".length())))).sorted().toList();
        assertThat(Duration.between(ticks.get(0), ticks.get(1))).isEqualTo(Duration.ofHours(1));
        assertThat(tester.fastForward("hourly", Duration.ofMinutes(30))).as("the next tick is after the window").isZero();
        assertThat(hourly.handled).hasSize(2);
    }
}
