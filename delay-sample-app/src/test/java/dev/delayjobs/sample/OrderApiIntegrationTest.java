package dev.delayjobs.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;

import dev.delayjobs.DelayPublisher;
import dev.delayjobs.JobInfo;
import dev.delayjobs.JobState;
import dev.delayjobs.PublishRequest;
import tools.jackson.databind.JsonNode;

/**
 * The sample end to end over HTTP, on the real Redis its own bootstrap starts (no Redis is
 * configured here, so {@link EmbeddedRedisEnvironmentPostProcessor} starts one) and its in-memory
 * H2 database, with the payment timeout and the receipt backoff shortened.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT, properties = {
        "sample.orders.payment-timeout=2s",
        "sample.mail.failures-before-success=2",
        "delay.queues.receipt-mail.max-attempts=5",
        "delay.queues.receipt-mail.backoff.initial=1s",
        "delay.queues.receipt-mail.backoff.multiplier=2" })
class OrderApiIntegrationTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(2);

    @LocalServerPort
    int port;

    @Autowired
    DelayPublisher delays;

    @Autowired
    Orders orders;

    SampleApi api;

    @BeforeEach
    void client() {
        api = new SampleApi(port);
    }

    @Test
    void placedOrderWaitsForItsPaymentWithATimeoutJob() {
        ResponseEntity<JsonNode> created = api.postJson("{\"amount\": 42.00}", "/orders");

        assertThat(created.getStatusCode()).isEqualTo(HttpStatus.CREATED);
        JsonNode order = created.getBody();
        long id = order.get("id").asLong();
        assertThat(order.get("status").asString()).isEqualTo("PENDING_PAYMENT");
        assertThat(order.get("amount").decimalValue()).isEqualByComparingTo("42.00");
        assertThat(created.getHeaders().getLocation()).hasPath("/orders/" + id);
        assertThat(api.get(id).status()).isEqualTo(OrderStatus.PENDING_PAYMENT);
        JobInfo timeout = delays.find(OrderTimeouts.QUEUE, OrderTimeouts.key(id)).orElseThrow();
        assertThat(timeout.state()).isEqualTo(JobState.DELAYED);
        assertThat(timeout.payloadJson()).isEqualTo("{\"orderId\":" + id + ",\"reason\":\"payment-timeout\"}");
        assertThat(timeout.payloadVersion()).as("OrderTimeout is @PayloadVersion(2)").isEqualTo(2);
        assertThat(Duration.between(timeout.publishedAt(), timeout.dueAt())).isEqualTo(TIMEOUT);

        CustomerOrder another = api.place("0.01");
        assertThat(another.id()).isGreaterThan(id);
        assertThat(api.get(another.id())).isEqualTo(another); // as stored, to the millisecond
    }

    @Test
    void unpaidOrderIsClosedAfterThePaymentTimeout() {
        CustomerOrder order = api.place("42.00");

        await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(100))
                .until(() -> api.get(order.id()).status(), OrderStatus.CLOSED::equals);

        assertThat(delays.find(OrderTimeouts.QUEUE, OrderTimeouts.key(order.id()))).isEmpty();
        ResponseEntity<JsonNode> late = api.post("/orders/{id}/pay", order.id());
        assertThat(late.getStatusCode()).isEqualTo(HttpStatus.CONFLICT);
        assertThat(late.getHeaders().getContentType()).isEqualTo(MediaType.APPLICATION_PROBLEM_JSON);
        assertThat(late.getBody().get("detail").asString())
                .isEqualTo("order " + order.id() + " cannot be paid: it is CLOSED");
        assertThat(api.get(order.id()).status()).isEqualTo(OrderStatus.CLOSED);
    }

    @Test
    void paidOrderStaysPaidAndItsTimeoutJobIsGone() {
        CustomerOrder order = api.place("19.99");

        CustomerOrder paid = api.pay(order.id());

        assertThat(paid.status()).isEqualTo(OrderStatus.PAID);
        assertThat(delays.find(OrderTimeouts.QUEUE, OrderTimeouts.key(order.id()))).isEmpty();
        // well past the payment deadline, the order is still paid
        await().during(TIMEOUT.plusSeconds(1)).atMost(TIMEOUT.plusSeconds(5)).pollInterval(Duration.ofMillis(200))
                .until(() -> api.get(order.id()).status(), OrderStatus.PAID::equals);
    }

    @Test
    void payingAPaidOrderAgainChangesNothing() {
        CustomerOrder paid = api.pay(api.place("7.50").id());

        assertThat(api.pay(paid.id())).isEqualTo(paid);
        assertThat(api.get(paid.id())).isEqualTo(paid);
    }

    @Test
    void redeliveredTimeoutChangesNeitherAPaidNorAClosedOrder() {
        CustomerOrder paid = api.pay(api.place("5.00").id());
        CustomerOrder unpaid = api.place("6.00");
        await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(100))
                .until(() -> api.get(unpaid.id()).status(), OrderStatus.CLOSED::equals);
        CustomerOrder closed = api.get(unpaid.id());

        // what a redelivery looks like to the handler: the same payload once more
        String paidAgain = delays.publish(OrderTimeouts.QUEUE, PublishRequest.of(new OrderTimeout(paid.id(), OrderTimeout.PAYMENT_TIMEOUT)));
        String closedAgain = delays.publish(OrderTimeouts.QUEUE, PublishRequest.of(new OrderTimeout(closed.id(), OrderTimeout.PAYMENT_TIMEOUT)));
        await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(50))
                .until(() -> delays.find(OrderTimeouts.QUEUE, paidAgain).isEmpty()
                        && delays.find(OrderTimeouts.QUEUE, closedAgain).isEmpty());

        assertThat(api.get(paid.id())).isEqualTo(paid);
        assertThat(api.get(closed.id())).isEqualTo(closed);
    }

    @Test
    void receiptMailIsRetriedUntilTheGatewayTakesIt() {
        CustomerOrder order = api.place("42.00");
        assertThat(api.pay(order.id()).receiptSentAt()).isNull();
        String receipt = ReceiptMails.key(order.id());

        // the gateway fails the first two sends; between attempts the job waits for its backoff (~1 s, ~2 s)
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20))
                .until(() -> delays.find(ReceiptMails.QUEUE, receipt), job -> isRetryAfter(job, 1));
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20))
                .until(() -> delays.find(ReceiptMails.QUEUE, receipt), job -> isRetryAfter(job, 2));
        await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(100))
                .until(() -> api.get(order.id()).receiptSentAt() != null);

        assertThat(delays.find(ReceiptMails.QUEUE, receipt)).isEmpty();
        CustomerOrder sent = api.get(order.id());
        assertThat(sent.status()).isEqualTo(OrderStatus.PAID);
        assertThat(sent.receiptSentAt()).isAfterOrEqualTo(sent.updatedAt());
        JsonNode retried = api.get("/actuator/metrics/delay.jobs.retried?tag=queue:receipt-mail").getBody();
        assertThat(retried.get("measurements").get(0).get("value").asDouble()).isGreaterThanOrEqualTo(2.0);

        // a redelivered receipt job sends nothing more
        String again = delays.publish(ReceiptMails.QUEUE, PublishRequest.of(new ReceiptMail(order.id())));
        await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(50))
                .until(() -> delays.find(ReceiptMails.QUEUE, again).isEmpty());
        assertThat(api.get(order.id())).isEqualTo(sent);
    }

    private static boolean isRetryAfter(Optional<JobInfo> job, int failedAttempts) {
        return job.filter(j -> j.state() == JobState.DELAYED && j.attempts() == failedAttempts)
                .filter(j -> j.lastError() != null && j.lastError().contains("simulated failure " + failedAttempts + " of 2"))
                .isPresent();
    }

    @Test
    void unknownOrderIsNotFound() {
        for (ResponseEntity<JsonNode> answer : List.of(api.get("/orders/{id}", 999_999),
                api.post("/orders/{id}/pay", 999_999))) {
            assertThat(answer.getStatusCode()).isEqualTo(HttpStatus.NOT_FOUND);
            assertThat(answer.getHeaders().getContentType()).isEqualTo(MediaType.APPLICATION_PROBLEM_JSON);
            assertThat(answer.getBody().get("detail").asString()).isEqualTo("no order 999999");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = { "{\"amount\": ", "not json", "", "{\"amount\": \"lots\"}", "{}", "{\"amount\": null}",
            "{\"amount\": -1.00}", "{\"amount\": 0}", "{\"amount\": 1.001}" })
    void badOrderIsRejectedAndNothingIsPlaced(String body) {
        long before = orders.count();

        ResponseEntity<JsonNode> answer = api.postJson(body, "/orders");

        assertThat(answer.getStatusCode()).isEqualTo(HttpStatus.BAD_REQUEST);
        assertThat(answer.getHeaders().getContentType()).isEqualTo(MediaType.APPLICATION_PROBLEM_JSON);
        assertThat(answer.getBody().get("status").asInt()).isEqualTo(400);
        assertThat(orders.count()).isEqualTo(before);
    }

    @Test
    void badAmountIsNamedInTheProblem() {
        assertThat(api.postJson("{}", "/orders").getBody().get("detail").asString())
                .isEqualTo("amount must not be null");
        assertThat(api.postJson("{\"amount\": -1}", "/orders").getBody().get("detail").asString())
                .isEqualTo("amount must be greater than 0");
        assertThat(api.postJson("{\"amount\": ", "/orders").getBody().get("detail").asString())
                .isEqualTo("the body must be JSON with a decimal amount, such as {\"amount\": 42.00}");
    }

    @Test
    void actuatorShowsHealthMetricsAndQueues() {
        CustomerOrder order = api.place("1.00");

        JsonNode health = api.get("/actuator/health").getBody();
        assertThat(health.get("status").asString()).isEqualTo("UP");
        JsonNode components = health.get("components");
        assertThat(components.get("db").get("status").asString()).isEqualTo("UP");
        assertThat(components.get("db").get("details").get("database").asString()).isEqualTo("H2");
        assertThat(components.get("redis").get("status").asString()).isEqualTo("UP");
        assertThat(components.get("delayQueues").get("status").asString()).isEqualTo("UP");
        assertThat(components.get("delayQueues").get("details").get("queues").has(OrderTimeouts.QUEUE)).isTrue();

        JsonNode queues = api.get("/actuator/delayqueues").getBody().get("queues");
        assertThat(queues.has(OrderTimeouts.QUEUE)).isTrue();
        assertThat(queues.has(ReceiptMails.QUEUE)).isTrue();
        assertThat(queues.get(OrderTimeouts.QUEUE).get("localHandler").asBoolean()).isTrue();
        assertThat(queues.get(OrderTimeouts.QUEUE).get("delayed").asLong()).isGreaterThanOrEqualTo(1);

        ResponseEntity<JsonNode> published = api.get("/actuator/metrics/delay.jobs.published?tag=queue:order-timeout");
        assertThat(published.getStatusCode()).isEqualTo(HttpStatus.OK);
        assertThat(published.getBody().get("measurements").get(0).get("value").asDouble()).isGreaterThanOrEqualTo(1.0);
        ResponseEntity<JsonNode> jobs = api.get("/actuator/metrics/delay.queue.jobs?tag=queue:order-timeout&tag=state:delayed");
        assertThat(jobs.getStatusCode()).isEqualTo(HttpStatus.OK);

        // the endpoint is read-only unless management.endpoint.delayqueues.access=unrestricted
        ResponseEntity<JsonNode> cancel = api.postJson("{\"id\": \"" + OrderTimeouts.key(order.id()) + "\"}",
                "/actuator/delayqueues/{queue}/cancel", OrderTimeouts.QUEUE);
        assertThat(cancel.getStatusCode().is4xxClientError()).isTrue();
        assertThat(delays.find(OrderTimeouts.QUEUE, OrderTimeouts.key(order.id()))).isPresent();
    }
}
