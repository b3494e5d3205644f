package dev.delayjobs.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import dev.delayjobs.DelayedHandler;
import dev.delayjobs.Recurring;
import dev.delayjobs.test.TestApps;
import dev.delayjobs.test.TestRedis;

/** A bad @Recurring fails startup naming the method and what is wrong with it, with a failure analysis. */
@ExtendWith(OutputCaptureExtension.class)
class RecurringValidationTest {

    static class WithoutHandler {
        @Recurring(name = "n", fixedRate = "1s")
        void run(Map<String, Object> tick) {
        }
    }

    static class CronAndRate {
        @DelayedHandler(queue = "q")
        @Recurring(name = "n", cron = "* * * * * *", fixedRate = "1s")
        void run(Map<String, Object> tick) {
        }
    }

    static class BadZone {
        @DelayedHandler(queue = "q")
        @Recurring(name = "n", cron = "0 0 2 * * *", zone = "Mars/Olympus")
        void run(Map<String, Object> tick) {
        }
    }

    static class BadCron {
        @DelayedHandler(queue = "q")
        @Recurring(name = "n", cron = "0 0 2 * *")
        void run(Map<String, Object> tick) {
        }
    }

    static class BadName {
        @DelayedHandler(queue = "q")
        @Recurring(name = "a b", fixedRate = "1s")
        void run(Map<String, Object> tick) {
        }
    }

    static class BadMisfire {
        @DelayedHandler(queue = "q")
        @Recurring(name = "n", fixedRate = "1s", misfire = "FIRE_TWICE")
        void run(Map<String, Object> tick) {
        }
    }

    static class BadOverlap {
        @DelayedHandler(queue = "q")
        @Recurring(name = "n", fixedRate = "1s", overlap = "QUEUE")
        void run(Map<String, Object> tick) {
        }
    }

    static class BadRate {
        @DelayedHandler(queue = "q")
        @Recurring(name = "n", fixedRate = "often")
        void run(Map<String, Object> tick) {
        }
    }

    @Test
    void aBadDeclarationIsAnalysedWithWhatEachAttributeTakes(CapturedOutput output) {
        assertThatThrownBy(() -> TestApps.run(TestRedis.uniquePrefix(), List.of(BadZone.class)).close())
                .hasStackTraceContaining(RecurringDeclarationException.class.getName());
        String all = output.getAll();
        assertThat(all).contains("APPLICATION FAILED TO START");
        String report = all.substring(all.lastIndexOf("APPLICATION FAILED TO START"));
        assertThat(report).contains("Description:").contains("@Recurring(name = \"n\") on recurringValidationTest.BadZone.run: "
                + "zone = 'Mars/Olympus' is not a zone id")
                .contains("Action:").contains("zone (cron only) takes a zone id such as \"Europe/Berlin\"")
                .contains("misfire is FIRE_ONE, FIRE_ALL or FIRE_NONE; overlap is RUN or SKIP");
    }

    @Test
    void eachBadDeclarationIsNamed() {
        assertFails(BadOverlap.class, "overlap = 'QUEUE' must be RUN or SKIP");
        assertFails(BadRate.class, "fixedRate = 'often'");
        assertFails(WithoutHandler.class, "needs @DelayedHandler on the same method");
        assertFails(CronAndRate.class, "exactly one of cron and fixedRate must be set");
        assertFails(BadZone.class, "zone = 'Mars/Olympus' is not a zone id");
        assertFails(BadCron.class, "cron '0 0 2 * *' is not a cron expression");
        assertFails(BadName.class, "schedule name 'a b'");
        assertFails(BadMisfire.class, "misfire = 'FIRE_TWICE' must be FIRE_ONE, FIRE_ALL or FIRE_NONE");
    }

    private static void assertFails(Class<?> handler, String message) {
        assertThatThrownBy(() -> TestApps.run(TestRedis.uniquePrefix(), List.of(handler)).close())
                .hasStackTraceContaining("@Recurring(name = ")
                .hasStackTraceContaining(handler.getSimpleName().substring(0, 1).toLowerCase())
                .hasStackTraceContaining(message);
    }
}
