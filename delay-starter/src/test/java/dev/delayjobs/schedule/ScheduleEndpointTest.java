package dev.delayjobs.schedule;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.redisson.client.codec.StringCodec;
import org.springframework.context.ConfigurableApplicationContext;

import dev.delayjobs.DelayedHandler;
import dev.delayjobs.DelayedJob;
import dev.delayjobs.Recurring;
import dev.delayjobs.queue.QueueName;
import dev.delayjobs.redis.ScheduleStore;
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

    @Test
    void aDeclaredScheduleNoRunningApplicationDeclaresIsReportedAndRemovedOnlyWhenAsked() {
        String prefix = TestRedis.uniquePrefix();
        try (ConfigurableApplicationContext app = TestApps.runWeb(prefix, List.of(Nightly.class),
                "management.endpoints.web.exposure.include=delayqueues", "management.endpoint.delayqueues.access=unrestricted")) {
            // declared by an application that renamed it since: its last declaration an hour old
            ScheduleStore store = app.getBean(ScheduleStore.class);
            store.declare(QueueName.of("reports").whole(), "old-nightly", "c:0 0 3 * * *@UTC;m:FIRE_ONE", "{}",
                    Instant.now().plus(Duration.ofHours(1)).toEpochMilli(), false, ScheduleStore.DeclareMode.PUT, true);
            TestRedis.sharedClient().getScoredSortedSet(prefix + ":{reports}:schedule-declared", StringCodec.INSTANCE)
                    .add(Instant.now().minus(Duration.ofHours(1)).toEpochMilli(), "old-nightly");
            ScheduleTimer timer = app.getBean(ScheduleTimer.class);

            assertThat(timer.upkeep().get(QueueName.of("reports"))).as("reported (a WARN)").containsExactly("old-nightly");
            Http http = new Http(app);
            Map<String, JsonNode> listed = listed(http);
            assertThat(listed.get("old-nightly").path("undeclared").asBoolean()).isTrue();
            assertThat(Instant.parse(listed.get("old-nightly").path("lastDeclared").asString()))
                    .isBefore(Instant.now().minus(Duration.ofMinutes(59)));
            assertThat(listed.get("nightly").path("undeclared").asBoolean()).as("declared by this application").isFalse();
            assertThat(listed.get("nightly").path("lastDeclared").isNull()).isFalse();
            assertThat(listed.get("old-nightly").path("nextTick").isNull()).as("it still ticks").isFalse();

            assertThat(timer.upkeep().get(QueueName.of("reports"))).as("nothing removed by the report").contains("old-nightly");
            Http.Response removed = http.post("/actuator/delayqueues/reports/remove-schedule", "{\"id\": \"old-nightly\"}");
            assertThat(removed.status()).isEqualTo(200);
            assertThat(removed.json().path("affected").asLong()).isEqualTo(1);
            assertThat(listed(http)).containsOnlyKeys("nightly");
            assertThat(timer.upkeep().get(QueueName.of("reports"))).isEmpty();
            assertThat(http.post("/actuator/delayqueues/reports/remove-schedule", "{}").status()).isEqualTo(400);
        }
    }

    private static Map<String, JsonNode> listed(Http http) {
        Map<String, JsonNode> listed = new java.util.TreeMap<>();
        for (JsonNode s : http.get("/actuator/delayqueues/reports/schedules").json().path("schedules")) {
            listed.put(s.path("name").asString(), s);
        }
        return listed;
    }
}
