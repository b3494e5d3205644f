package dev.delayjobs.actuate;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.stereotype.Component;

import dev.delayjobs.DelayPublisher;
import dev.delayjobs.DelayedHandler;
import dev.delayjobs.test.Http;
import dev.delayjobs.test.TestApps;
import dev.delayjobs.test.TestRedis;

/**
 * On servlet and WebFlux applications alike, endpoint writes that actuator alone answers with a bare 415 or a 404 that reads like a wrong
 * URL get an answer that says what to do; and the startup log names each consumed queue.
 */
@ExtendWith(OutputCaptureExtension.class)
class EndpointWriteRequestTest {

    @Component
    static class Handlers {

        @DelayedHandler(queue = "mails", concurrency = "3", maxAttempts = "4", handlerTimeout = "500ms",
                backoffInitial = "250ms")
        void send(String mail) {
        }

        @DelayedHandler(queue = "reports", autoStartup = "false")
        void report(String report) {
        }
    }

    /** Both the servlet filter and its WebFlux counterpart. */
    @ParameterizedTest
    @ValueSource(strings = { "servlet", "reactive" })
    void writesWhileReadOnlySayWhichPropertyAllowsThem(String web, CapturedOutput output) {
        try (ConfigurableApplicationContext context = TestApps.runWeb(TestRedis.uniquePrefix(), List.of(Handlers.class),
                "spring.main.web-application-type=" + web,
                "management.endpoints.web.exposure.include=delayqueues")) {
            Http http = new Http(context);
            Http.Response response = http.post("/actuator/delayqueues/mails/requeue-dead", "{\"id\": \"a\"}");
            assertThat(response.status()).isEqualTo(405);
            assertThat(response.headers().firstValue("Allow")).hasValue("GET");
            assertThat(response.json().path("instance").asString()).isEqualTo("/actuator/delayqueues/mails/requeue-dead");
            assertThat(response.json().path("detail").asString())
                    .contains("management.endpoint.delayqueues.access=unrestricted")
                    .as("names every write the property allows")
                    .contains("requeue-dead", "delete-dead", "cancel", "pause", "resume", "rate-limit", "migrate");
            assertThat(http.get("/actuator/delayqueues/mails").status()).isEqualTo(200);

            assertThat(output.getAll()).contains("Queue 'mails': consumed by bean 'endpointWriteRequestTest.Handlers' "
                    + "method Handlers.send(String), concurrency 3, max attempts 4, backoff 250ms x2.0 up to 10m, "
                    + "handler timeout 500ms")
                    .contains("Queue 'reports': handled by bean 'endpointWriteRequestTest.Handlers' method "
                            + "Handlers.report(String), not started (autoStartup is false)");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = { "servlet", "reactive" })
    void malformedWritesSayWhatToSend(String web) {
        try (ConfigurableApplicationContext context = TestApps.runWeb(TestRedis.uniquePrefix(), List.of(Handlers.class),
                "spring.main.web-application-type=" + web,
                "management.endpoints.web.exposure.include=delayqueues",
                "management.endpoint.delayqueues.access=unrestricted")) {
            Http http = new Http(context);
            String job = context.getBean(DelayPublisher.class).publish("mails", "hello", Duration.ofHours(1));

            Http.Response noContentType = http.postRaw("/actuator/delayqueues/mails/cancel", null, "{\"id\": \"" + job + "\"}");
            assertThat(noContentType.status()).isEqualTo(400);
            assertThat(noContentType.json().path("detail").asString()).startsWith("No Content-Type.")
                    .contains(WriteRequestCheck.WHAT_TO_SEND);

            Http.Response noBody = http.postRaw("/actuator/delayqueues/mails/delete-dead", "application/json", null);
            assertThat(noBody.status()).isEqualTo(400);
            assertThat(noBody.json().path("detail").asString()).startsWith("No body.");

            Http.Response wellFormed = http.post("/actuator/delayqueues/mails/cancel", "{\"id\": \"" + job + "\"}");
            assertThat(wellFormed.status()).isEqualTo(200);
            assertThat(wellFormed.json().path("affected").asLong()).isEqualTo(1);
        }
    }
}
