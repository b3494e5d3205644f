package dev.delayjobs.actuate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;

import dev.delayjobs.DelayPublisher;
import dev.delayjobs.DelayedHandler;
import dev.delayjobs.JobInfo;
import dev.delayjobs.JobState;
import dev.delayjobs.PayloadVersion;
import dev.delayjobs.test.Http;
import dev.delayjobs.test.TestApps;
import dev.delayjobs.test.TestRedis;
import tools.jackson.databind.JsonNode;

/**
 * The endpoint's dead page over HTTP (what the dashboard reads and shows) names the payload
 * version of each dead job: a version-2 job after a rollback (its handler reads version 1), a
 * version-2 job whose handler failed, and a job published without a version (1).
 */
class DeadJobPayloadVersionTest {

    /** Version 1, as the rolled-back release reads it. */
    record Note(String text) {
    }

    /** Version 2, as the newer release published it. */
    @PayloadVersion(2)
    record NoteV2(String text, String author) {
    }

    static class Handlers {

        @DelayedHandler(queue = "notes", maxAttempts = "5")
        void notes(Note note) {
        }

        @DelayedHandler(queue = "failing", maxAttempts = "1")
        void failing(NoteV2 note) {
            throw new IllegalStateException("cannot deliver " + note.text());
        }

        @DelayedHandler(queue = "plain", maxAttempts = "1")
        void plain(String text) {
            throw new IllegalStateException("cannot deliver " + text);
        }
    }

    @Test
    void theDeadPageNamesEachDeadJobsPayloadVersion() {
        try (ConfigurableApplicationContext app = TestApps.runWeb(TestRedis.uniquePrefix(), List.of(Handlers.class),
                "management.endpoints.web.exposure.include=delayqueues", "delay.dashboard.enabled=true")) {
            DelayPublisher publisher = app.getBean(DelayPublisher.class);
            publisher.publish("notes", new NoteV2("hello", "ada"), Duration.ZERO, "rolled-back");
            publisher.publish("notes", new Note("hi"), Duration.ofHours(1), "waiting");
            publisher.publish("failing", new NoteV2("ping", "alan"), Duration.ZERO, "failed");
            publisher.publish("plain", "pong", Duration.ZERO, "unversioned");
            awaitDead(publisher, "notes", "rolled-back");
            awaitDead(publisher, "failing", "failed");
            awaitDead(publisher, "plain", "unversioned");

            Http http = new Http(app);
            assertThat(deadVersions(http, "notes")).as("a newer job after a rollback")
                    .isEqualTo(Map.of("rolled-back", 2));
            assertThat(deadVersions(http, "failing")).as("a failing handler").isEqualTo(Map.of("failed", 2));
            assertThat(deadVersions(http, "plain")).as("no version header").isEqualTo(Map.of("unversioned", 1));
            assertThat(http.get("/delay-jobs/dashboard.js").body()).as("the dashboard shows what the page says")
                    .contains("job.payloadVersion");
        }
    }

    private static void awaitDead(DelayPublisher publisher, String queue, String id) {
        await().atMost(Duration.ofSeconds(10)).until(() -> publisher.find(queue, id).map(JobInfo::state)
                .orElse(null) == JobState.DEAD);
    }

    private static Map<String, Integer> deadVersions(Http http, String queue) {
        Http.Response response = http.get("/actuator/delayqueues/" + queue);
        assertThat(response.status()).isEqualTo(200);
        Map<String, Integer> versions = new HashMap<>();
        for (JsonNode job : response.json().get("dead").get("jobs")) {
            versions.put(job.get("id").asString(), job.get("payloadVersion").asInt());
        }
        return versions;
    }
}
