package dev.delayjobs.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;

import dev.delayjobs.DelayPublisher;
import dev.delayjobs.JobInfo;
import dev.delayjobs.JobState;
import tools.jackson.databind.JsonNode;

/**
 * A mail gateway that never recovers: every receipt uses up its attempts and ends in the dead set,
 * where the delayqueues endpoint shows it and, with write access granted, requeues it.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT, properties = {
        "sample.mail.failures-before-success=1000",
        "delay.queues.receipt-mail.max-attempts=3",
        "delay.queues.receipt-mail.backoff.initial=100ms",
        "management.endpoint.delayqueues.access=unrestricted" })
class ReceiptMailDeadSetIntegrationTest {

    private static final String ERROR_TYPE = FakeMailGateway.MailGatewayException.class.getName();

    @LocalServerPort
    int port;

    @Autowired
    DelayPublisher delays;

    @Test
    void receiptThatKeepsFailingEndsInTheDeadSetAndCanBeRequeued() {
        SampleApi api = new SampleApi(port);
        CustomerOrder order = api.pay(api.place("42.00").id());
        String receipt = ReceiptMails.key(order.id());

        JobInfo dead = await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(50))
                .until(() -> delays.find(ReceiptMails.QUEUE, receipt), job -> isDead(job)).orElseThrow();

        assertThat(dead.attempts()).isEqualTo(3);
        assertThat(dead.lastError()).isEqualTo(ERROR_TYPE + ": mail gateway unavailable (simulated failure 3 of 1000"
                + " for the receipt of order " + order.id() + ")");
        assertThat(api.get(order.id()).status()).isEqualTo(OrderStatus.PAID);
        assertThat(api.get(order.id()).receiptSentAt()).isNull();

        ResponseEntity<JsonNode> queue = api.get("/actuator/delayqueues/{queue}", ReceiptMails.QUEUE);
        assertThat(queue.getStatusCode()).isEqualTo(HttpStatus.OK);
        assertThat(queue.getBody().get("stats").get("dead").asLong()).isEqualTo(1);
        assertThat(queue.getBody().get("stats").get("totals").get("retried").asLong()).isEqualTo(2);
        JsonNode deadJobs = queue.getBody().get("dead");
        assertThat(deadJobs.get("total").asLong()).isEqualTo(1);
        JsonNode shown = deadJobs.get("jobs").get(0);
        assertThat(shown.get("id").asString()).isEqualTo(receipt);
        assertThat(shown.get("attempts").asInt()).isEqualTo(3);
        assertThat(shown.get("lastError").asString()).isEqualTo(dead.lastError());

        // requeued, the job gets its attempts afresh: three more failures, and it is dead again
        ResponseEntity<JsonNode> requeued = api.postJson("{\"id\": \"" + receipt + "\"}",
                "/actuator/delayqueues/{queue}/requeue-dead", ReceiptMails.QUEUE);
        assertThat(requeued.getStatusCode()).isEqualTo(HttpStatus.OK);
        assertThat(requeued.getBody().get("affected").asLong()).isEqualTo(1);
        JobInfo deadAgain = await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(50))
                .until(() -> delays.find(ReceiptMails.QUEUE, receipt),
                        job -> isDead(job) && job.get().lastError().contains("simulated failure 6 of 1000"))
                .orElseThrow();
        assertThat(deadAgain.attempts()).isEqualTo(3);
    }

    private static boolean isDead(Optional<JobInfo> job) {
        return job.map(JobInfo::state).filter(JobState.DEAD::equals).isPresent();
    }
}
