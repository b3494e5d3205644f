package dev.delayjobs.actuate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;

import dev.delayjobs.DelayPublisher;
import dev.delayjobs.DelayedHandler;
import dev.delayjobs.test.Http;
import dev.delayjobs.embeddedredis.RedisServerProcess;
import dev.delayjobs.test.TestApps;
import dev.delayjobs.test.TestRedis;

/** The delayQueues health goes DOWN while Redis is gone, and UP again when it is back. */
@Tag("slow")
@Tag("fault")
class HealthRedisDownTest {

    static class Handler {

        @DelayedHandler(queue = "health")
        void handle(String payload) {
        }
    }

    @Test
    void healthIsDownWhileRedisIsStoppedAndUpWhenItIsBack() {
        try (RedisServerProcess redis = RedisServerProcess.start();
                ConfigurableApplicationContext context = TestApps.runWeb("127.0.0.1", redis.port(),
                        TestRedis.uniquePrefix(), List.of(Handler.class),
                        "management.endpoint.health.show-details=always", "spring.data.redis.timeout=500ms")) {
            Http http = new Http(context);
            context.getBean(DelayPublisher.class).publish("health", "x", Duration.ofMinutes(5));
            assertThat(http.get("/actuator/health/delayQueues").status()).isEqualTo(200);

            redis.kill();
            await().atMost(Duration.ofSeconds(60)).until(() -> http.get("/actuator/health/delayQueues").status() == 503);
            Http.Response down = http.get("/actuator/health/delayQueues");
            assertThat(down.json().get("status").asString()).isEqualTo("DOWN");
            assertThat(down.json().get("details").get("error").asString()).contains("Redis could not");

            redis.restart();
            await().atMost(Duration.ofSeconds(60)).until(() -> http.get("/actuator/health/delayQueues").status() == 200);
        }
    }
}
