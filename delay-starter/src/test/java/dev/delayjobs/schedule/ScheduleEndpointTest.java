package dev.delayjobs.schedule;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;

import dev.delayjobs.DelayedHandler;
import dev.delayjobs.DelayedJob;
import dev.delayjobs.Recurring;
import dev.delayjobs.test.Http;
import dev.delayjobs.test.TestApps;
import dev.delayjobs.test.TestRedis;
import tools.jackson.databind.JsonNode;

/** The endpoint lists a queue's schedules with their next tick and paused state, over HTTP. */
class ScheduleEndpointTest {

    static class Nightly {

        @DelayedHandler(queue = "reports")
        @Recurring(name = "nightly", cron = "0 0 2 * * *", zone = "Europe/Berlin")
        void run(DelayedJob<Map<String, Object>> tick) {
        }
    }

    @Test
    void schedulesAreListedWithNextTickAndPaused() {
        try (ConfigurableApplicationContext app = TestApps.runWeb(TestRedis.uniquePrefix(), List.of(Nightly.class),
                "management.endpoints.web.exposure.include=delayqueues")) {
            app.getBean(DelaySchedules.class).create("reports", "weekly", ScheduleSpec.fixedRate(Duration.ofDays(7), Misfire.FIRE_ONE),
                    Map.of("customer", 42));
            app.getBean(DelaySchedules.class).pause("reports", "weekly");
            Http http = new Http(app);

            Http.Response page = http.get("/actuator/delayqueues/reports/schedules");
            assertThat(page.status()).isEqualTo(200);
            assertThat(page.json().path("next").asString()).isEqualTo("0");
            JsonNode nightly = null;
            JsonNode weekly = null;
            for (JsonNode s : page.json().path("schedules")) {
                if (s.path("name").asString().equals("nightly")) {
                    nightly = s;
                }
                if (s.path("name").asString().equals("weekly")) {
                    weekly = s;
                }
            }
            assertThat(nightly).isNotNull();
            assertThat(nightly.path("spec").asString()).isEqualTo("c:0 0 2 * * *@Europe/Berlin;m:FIRE_ONE");
            assertThat(nightly.path("paused").asBoolean()).isFalse();
            assertThat(Instant.parse(nightly.path("nextTick").asString())).isAfter(Instant.now())
                    .isBefore(Instant.now().plus(Duration.ofHours(25)));
            assertThat(weekly).isNotNull();
            assertThat(weekly.path("paused").asBoolean()).isTrue();
            assertThat(weekly.path("nextTick").isNull()).isTrue();

            assertThat(http.get("/actuator/delayqueues/reports/schedules?size=0").status()).isEqualTo(400);
        }
    }
}
