package dev.delayjobs.bridge;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.redisson.client.codec.StringCodec;
import org.springframework.context.ConfigurableApplicationContext;
import tools.jackson.databind.JsonNode;

import dev.delayjobs.test.Http;
import dev.delayjobs.test.TestApps;
import dev.delayjobs.test.TestRedis;

/**
 * A queue in compatibility mode through {@code /actuator/delayqueues}: shown with its mode and what
 * waits in the Redisson queue, migrated by a POST, then shown with everything in the native queue.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class BridgeEndpointTest {

    @Test
    void showsTheQueueInCompatibilityModeAndMigratesItOverHttp() {
        String list = "legacy-" + UUID.randomUUID();
        try (LegacyProducer producer = new LegacyProducer(list, StringCodec.INSTANCE);
                ConfigurableApplicationContext app = TestApps.runWeb(TestRedis.uniquePrefix(), List.of(BridgeHandlers.class),
                        "test.queue=" + list, "delay.queues." + list + ".redisson-delayed-queue=" + list,
                        "delay.queues." + list + ".redisson-codec=string",
                        "management.endpoints.web.exposure.include=delayqueues",
                        "management.endpoint.delayqueues.access=unrestricted")) {
            for (int n = 0; n < 30; n++) {
                producer.offer("{\"orderId\":" + n + ",\"reason\":\"unpaid\"}", Duration.ofHours(1));
            }
            Http http = new Http(app);
            JsonNode before = http.get("/actuator/delayqueues").json().path("queues").path(list);
            assertThat(before.path("mode").asString()).isEqualTo("redisson-delayed-queue");
            assertThat(before.path("redissonDelayedQueue").path("list").asString()).isEqualTo(list);
            assertThat(before.path("redissonDelayedQueue").path("delayed").asLong()).isEqualTo(30);
            assertThat(before.path("delayed").asLong()).as("the Redisson queue's elements count in").isEqualTo(30);

            Http.Response migrate = http.post("/actuator/delayqueues/" + list + "/migrate", "{}");
            assertThat(migrate.status()).isEqualTo(200);
            assertThat(migrate.json().path("affected").asLong()).isEqualTo(30);
            assertThat(migrate.json().path("migration").path("complete").asBoolean()).isTrue();
            assertThat(migrate.json().path("migration").path("dead").asLong()).isZero();

            JsonNode after = http.get("/actuator/delayqueues").json().path("queues").path(list);
            assertThat(after.path("redissonDelayedQueue").path("delayed").asLong()).isZero();
            assertThat(after.path("delayed").asLong()).as("now native jobs").isEqualTo(30);

            assertThat(http.post("/actuator/delayqueues/elsewhere/migrate", "{}").status()).as("unknown queue").isEqualTo(404);
        }
    }
}
