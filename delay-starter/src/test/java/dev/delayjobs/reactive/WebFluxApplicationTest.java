package dev.delayjobs.reactive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerResponse;
import reactor.core.publisher.Mono;

import dev.delayjobs.DelayPublisher;
import dev.delayjobs.DelayedHandler;
import dev.delayjobs.PublishRequest;
import dev.delayjobs.ReactiveDelayPublisher;
import dev.delayjobs.embeddedredis.RespConnection;
import dev.delayjobs.test.TestRedis;

/**
 * A WebFlux application on Netty whose request handlers, on the server's event-loop threads,
 * publish, find, reschedule and cancel through the {@link ReactiveDelayPublisher}, with BlockHound
 * failing any blocking call on those threads; the jobs are consumed by a {@link DelayedHandler}. The
 * same handler calling the blocking {@link DelayPublisher} is caught, which shows the detector
 * watches those threads. The dashboard page is served too.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "spring.main.web-application-type=reactive",
        "spring.main.banner-mode=off",
        "logging.level.org.redisson=warn",
        "delay.dashboard.enabled=true",
        "management.endpoints.web.exposure.include=delayqueues" })
class WebFluxApplicationTest {

    private static final String QUEUE = "webflux-orders";

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {

        final Set<String> handled = ConcurrentHashMap.newKeySet();
        final Set<String> handlerThreads = ConcurrentHashMap.newKeySet();

        @DelayedHandler(queue = QUEUE)
        void handle(String order) {
            handled.add(order);
        }

        @Bean
        RouterFunction<ServerResponse> orderRoutes(ReactiveDelayPublisher delays, DelayPublisher blocking) {
            return RouterFunctions.route()
                    .POST("/orders/{key}", request -> onEventLoop(delays.publish(QUEUE, "order " + request.pathVariable("key"),
                            Duration.ofHours(1), request.pathVariable("key"))))
                    .POST("/orders", request -> onEventLoop(delays.publishAll(QUEUE, List.of(
                            PublishRequest.of("batch 1").delay(Duration.ofHours(1)), PublishRequest.of("batch 2").key("batch-2")))
                            .map(ids -> String.join(",", ids))))
                    .GET("/orders/{key}", request -> onEventLoop(delays.find(QUEUE, request.pathVariable("key"))
                            .map(job -> job.state().name())))
                    .PUT("/orders/{key}/now", request -> onEventLoop(delays.reschedule(QUEUE, request.pathVariable("key"),
                            Duration.ZERO).map(String::valueOf)))
                    .DELETE("/orders/{key}", request -> onEventLoop(delays.cancel(QUEUE, request.pathVariable("key"))
                            .map(String::valueOf)))
                    .POST("/blocking/{key}", request -> onEventLoop(Mono.fromSupplier(() -> blocking.publish(QUEUE, "blocked",
                            Duration.ofHours(1), request.pathVariable("key")))))
                    .build();
        }

        /** Answers with what {@code result} emits (404 when empty), recording the thread the handler ran on. */
        private Mono<ServerResponse> onEventLoop(Mono<String> result) {
            handlerThreads.add(Thread.currentThread().getName());
            return result.flatMap(body -> ServerResponse.ok().bodyValue(body)).switchIfEmpty(ServerResponse.notFound().build());
        }
    }

    @DynamicPropertySource
    static void redis(DynamicPropertyRegistry registry) {
        registry.add("spring.data.redis.host", TestRedis::host);
        registry.add("spring.data.redis.port", TestRedis::port);
        registry.add("delay.key-prefix", TestRedis::uniquePrefix);
    }

    @LocalServerPort
    int port;

    @Autowired
    App app;

    private final HttpClient http = HttpClient.newHttpClient();

    @BeforeAll
    static void watchEventLoops() {
        EventLoopBlockingDetector.install();
        EventLoopBlockingDetector.watch(true);
    }

    @AfterAll
    static void stopWatching() {
        EventLoopBlockingDetector.watch(false);
    }

    @BeforeEach
    void clearFindings() {
        EventLoopBlockingDetector.clear();
    }

    @Test
    void publishFindRescheduleCancelFromTheEventLoopWithoutBlockingIt() throws Exception {
        assertThat(call("POST", "/orders/o-1").body()).isEqualTo("o-1");
        assertThat(call("GET", "/orders/o-1").body()).isEqualTo("DELAYED");
        assertThat(call("POST", "/orders/o-2").body()).isEqualTo("o-2");
        assertThat(call("DELETE", "/orders/o-2").body()).isEqualTo("true");
        assertThat(call("GET", "/orders/o-2").statusCode()).isEqualTo(404);
        assertThat(call("DELETE", "/orders/o-2").body()).isEqualTo("false");

        assertThat(call("PUT", "/orders/o-1/now").body()).isEqualTo("true");
        await().atMost(Duration.ofSeconds(10)).until(() -> app.handled.contains("order o-1"));
        await().atMost(Duration.ofSeconds(5)).until(() -> call("GET", "/orders/o-1").statusCode() == 404);

        String[] ids = call("POST", "/orders").body().split(",");
        assertThat(ids).hasSize(2).endsWith("batch-2");
        assertThat(call("GET", "/orders/" + ids[0]).body()).isEqualTo("DELAYED");
        await().atMost(Duration.ofSeconds(10)).until(() -> app.handled.contains("batch 2"));

        assertThat(app.handlerThreads).isNotEmpty().allMatch(name -> name.startsWith("webflux-http-"));
        assertThat(EventLoopBlockingDetector.found()).isEmpty();
    }

    @Test
    void theBlockingPublisherOnTheEventLoopIsCaught() throws Exception {
        HttpResponse<String> response;
        // Redis holds every write until the response is in: the blocking publisher must wait for its
        // reply, so the detector sees it park (a reply that came first would let it return unseen)
        try (RespConnection redis = new RespConnection(TestRedis.host(), TestRedis.port())) {
            redis.call("CLIENT", "PAUSE", "20000", "WRITE");
            try {
                response = call("POST", "/blocking/b-1");
            }
            finally {
                redis.call("CLIENT", "UNPAUSE");
            }
        }

        assertThat(response.statusCode()).isEqualTo(500);
        assertThat(EventLoopBlockingDetector.found()).isNotEmpty()
                .allMatch(call -> call.contains(" on webflux-http-"));
        // the publish that failed there leaves the publisher as it was: the next one goes through
        assertThat(call("POST", "/orders/after-blocking").body()).isEqualTo("after-blocking");
    }

    @Test
    void theDashboardPageIsServed() throws Exception {
        HttpResponse<String> page = call("GET", "/delay-jobs/");

        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.headers().firstValue("Content-Type")).hasValueSatisfying(type -> assertThat(type).startsWith("text/html"));
        assertThat(page.body()).contains("/actuator/delayqueues");
        assertThat(call("GET", "/delay-jobs/dashboard.js").statusCode()).isEqualTo(200);
        assertThat(EventLoopBlockingDetector.found()).isEmpty();
    }

    private HttpResponse<String> call(String method, String path) throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://localhost:" + port + path))
                .method(method, HttpRequest.BodyPublishers.noBody()).timeout(Duration.ofSeconds(10)).build();
        return http.send(request, HttpResponse.BodyHandlers.ofString());
    }
}
