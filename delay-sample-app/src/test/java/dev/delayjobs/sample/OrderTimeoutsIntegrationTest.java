package dev.delayjobs.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.ResponseEntity;
import org.springframework.web.client.RestClient;

import dev.delayjobs.DelayPublisher;
import dev.delayjobs.JobState;

/**
 * The sample end to end, over HTTP, on the Redis its own bootstrap starts (no Redis is configured
 * here, so {@link EmbeddedRedisEnvironmentPostProcessor} starts one).
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT, properties = "sample.orders.payment-timeout=1s")
class OrderTimeoutsIntegrationTest {

    @LocalServerPort
    int port;

    @Autowired
    DelayPublisher delays;

    RestClient http;

    @BeforeEach
    void client() {
        http = RestClient.create("http://127.0.0.1:" + port);
    }

    @Test
    void unpaidOrderIsClosedAndPaidOrderLosesItsTimeout() {
        ResponseEntity<Order> created = http.post().uri("/orders").retrieve().toEntity(Order.class);
        assertThat(created.getStatusCode()).isEqualTo(HttpStatus.CREATED);
        Order unpaid = created.getBody();
        assertThat(unpaid.status()).isEqualTo(OrderStatus.PENDING_PAYMENT);
        assertThat(created.getHeaders().getLocation()).hasPath("/orders/" + unpaid.id());

        await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(100))
                .until(() -> get(unpaid.id()).status(), OrderStatus.CLOSED::equals);
        assertThat(delays.find(OrderTimeouts.QUEUE, OrderTimeouts.key(unpaid.id()))).isEmpty();
        assertThat(status(http.post().uri("/orders/{id}/pay", unpaid.id()))).isEqualTo(HttpStatus.CONFLICT);

        Order order = http.post().uri("/orders").retrieve().body(Order.class);
        assertThat(delays.find(OrderTimeouts.QUEUE, OrderTimeouts.key(order.id())))
                .hasValueSatisfying(job -> assertThat(job.state()).isEqualTo(JobState.DELAYED));
        Order paid = http.post().uri("/orders/{id}/pay", order.id()).retrieve().body(Order.class);
        assertThat(paid.status()).isEqualTo(OrderStatus.PAID);
        assertThat(delays.find(OrderTimeouts.QUEUE, OrderTimeouts.key(order.id()))).isEmpty();
        assertThat(get(order.id()).status()).isEqualTo(OrderStatus.PAID);

        assertThat(status(http.get().uri("/orders/{id}", 999_999))).isEqualTo(HttpStatus.NOT_FOUND);
    }

    private Order get(long id) {
        return http.get().uri("/orders/{id}", id).retrieve().body(Order.class);
    }

    private static HttpStatusCode status(RestClient.RequestHeadersSpec<?> request) {
        return request.exchange((req, response) -> response.getStatusCode());
    }
}
