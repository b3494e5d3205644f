package dev.delayjobs.actuate;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.stereotype.Component;

import dev.delayjobs.DelayPublisher;
import dev.delayjobs.DelayQueueControl;
import dev.delayjobs.DelayedHandler;
import dev.delayjobs.RateLimit;
import dev.delayjobs.test.Http;
import dev.delayjobs.test.TestApps;
import dev.delayjobs.test.TestRedis;
import tools.jackson.databind.JsonNode;

/** Pause, resume and the rate limit through {@code /actuator/delayqueues}, as the dashboard and curl use them. */
class EndpointQueueControlTest {

    @Component
    static class Handlers {

        @DelayedHandler(queue = "sms", concurrency = "2")
        void send(String text) {
        }
    }

    @Test
    void queueIsPausedResumedAndRateLimitedOverHttp() {
        try (ConfigurableApplicationContext context = TestApps.runWeb(TestRedis.uniquePrefix(), List.of(Handlers.class),
                "management.endpoints.web.exposure.include=delayqueues",
                "management.endpoint.delayqueues.access=unrestricted", "delay.queues.sms.rate-limit=20/1s")) {
            Http http = new Http(context);
            context.getBean(DelayPublisher.class).publish("sms", "hello", Duration.ofHours(1));
            JsonNode before = http.get("/actuator/delayqueues").json().path("queues").path("sms");
            assertThat(before.path("paused").asBoolean()).isFalse();
            assertThat(before.path("rateLimit").asString()).as("the configured limit").isEqualTo("20/1s");
            assertThat(before.path("rateLimitSetAtRuntime").asBoolean()).isFalse();

            Http.Response pause = http.post("/actuator/delayqueues/sms/pause", "{}");
            assertThat(pause.status()).isEqualTo(200);
            assertThat(pause.json().path("affected").asLong()).isEqualTo(1);
            assertThat(http.post("/actuator/delayqueues/sms/pause", "{}").json().path("affected").asLong())
                    .as("already paused").isZero();
            JsonNode paused = http.get("/actuator/delayqueues/sms").json().path("stats");
            assertThat(paused.path("paused").asBoolean()).isTrue();
            assertThat(paused.path("pausedAt").isNull()).isFalse();
            assertThat(context.getBean(DelayQueueControl.class).state("sms").paused()).isTrue();

            assertThat(http.post("/actuator/delayqueues/sms/resume", "{}").json().path("affected").asLong()).isEqualTo(1);
            assertThat(context.getBean(DelayQueueControl.class).state("sms").paused()).isFalse();

            assertThat(http.post("/actuator/delayqueues/sms/rate-limit", "{\"limit\": \"5/1s\"}").status()).isEqualTo(200);
            JsonNode limited = http.get("/actuator/delayqueues").json().path("queues").path("sms");
            assertThat(limited.path("rateLimit").asString()).isEqualTo("5/1s");
            assertThat(limited.path("rateLimitSetAtRuntime").asBoolean()).isTrue();
            assertThat(context.getBean(DelayQueueControl.class).state("sms").rateLimit()).isEqualTo(RateLimit.parse("5/1s"));

            Http.Response bad = http.post("/actuator/delayqueues/sms/rate-limit", "{\"limit\": \"fast\"}");
            assertThat(bad.status()).isEqualTo(400);
            assertThat(bad.body()).contains("rate limit 'fast' must be <permits>/<window>, for example 100/1s");
            Http.Response missing = http.post("/actuator/delayqueues/sms/rate-limit", "{}");
            assertThat(missing.status()).isEqualTo(400);
            assertThat(missing.body()).contains("\\\"none\\\"");

            assertThat(http.post("/actuator/delayqueues/sms/rate-limit", "{\"limit\": \"none\"}").status()).isEqualTo(200);
            JsonNode cleared = http.get("/actuator/delayqueues").json().path("queues").path("sms");
            assertThat(cleared.path("rateLimit").asString()).as("back to the configured limit").isEqualTo("20/1s");
            assertThat(cleared.path("rateLimitSetAtRuntime").asBoolean()).isFalse();

            assertThat(http.post("/actuator/delayqueues/nowhere/pause", "{}").status()).as("unknown queue").isEqualTo(404);
        }
    }
}
