package dev.delayjobs.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;

import dev.delayjobs.DelayPublisher;
import dev.delayjobs.DelayQueueControl;
import dev.delayjobs.JobState;
import dev.delayjobs.PayloadVersion;
import dev.delayjobs.actuate.DelayQueuesEndpoint;
import tools.jackson.databind.JsonNode;

/**
 * The sample app's dashboard in a real headless Chromium: the queues and counts it shows are the
 * endpoint's, and its buttons requeue a dead receipt (which is then mailed) and pause a queue; dead
 * jobs show their payload version and page back through the dead set.
 * Saves {@code target/dashboard.png}.
 */
@Tag("slow")
@Tag("browser")
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT, properties = {
        "sample.mail.failures-before-success=1",
        "delay.queues.receipt-mail.max-attempts=1",
        "management.endpoint.delayqueues.access=unrestricted",
        "delay.dashboard.refresh-interval=500ms" })
class DashboardBrowserTest {

    private static final List<String> COUNTS = List.of("delayed", "ready", "running", "dead");

    @LocalServerPort
    int port;

    @Autowired
    DelayPublisher delays;

    @Autowired
    DelayQueueControl control;

    @Autowired
    DelayQueuesEndpoint endpoint;

    WebDriver browser;

    @BeforeEach
    void openBrowser() throws IOException {
        Chromium chromium = Chromium.find();
        ChromeOptions options = new ChromeOptions();
        options.setBinary(chromium.browser().toFile());
        // the flags this machine's closed network needs: no background calls to Google's hosts
        options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--window-size=1280,900",
                "--user-data-dir=" + Files.createTempDirectory("chromium-profile"));
        ChromeDriverService driver = new ChromeDriverService.Builder()
                .usingDriverExecutable(chromium.driver().toFile()).usingAnyFreePort().build();
        browser = new ChromeDriver(driver, options);
    }

    @AfterEach
    void closeBrowser() {
        if (browser != null) {
            browser.quit();
        }
        control.resume(OrderTimeouts.QUEUE); // the queue is shared with the other tests of this JVM
    }

    @Test
    void dashboardShowsTheEndpointsCountsRequeuesADeadReceiptAndPausesAQueue() throws IOException {
        SampleApi api = new SampleApi(port);
        api.place("12.00"); // its timeout waits 30 s: a delayed job
        CustomerOrder paid = api.pay(api.place("42.00").id());
        String receipt = ReceiptMails.key(paid.id());
        await().atMost(Duration.ofSeconds(15)).until(() -> delays.find(ReceiptMails.QUEUE, receipt)
                .map(job -> job.state() == JobState.DEAD).orElse(false));

        browser.get("http://127.0.0.1:" + port + "/delay-jobs");
        assertThat(browser.getCurrentUrl()).endsWith("/delay-jobs/");
        assertThat(browser.findElement(By.id("notice")).isDisplayed()).as("writes are allowed: no read-only notice")
                .isFalse();

        // every queue of the endpoint is a row, with the endpoint's counts
        await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> {
            JsonNode queues = api.get("/actuator/delayqueues").getBody().get("queues");
            assertThat(browser.findElements(By.cssSelector("#queues tbody tr"))).hasSize(queues.size());
            for (Iterator<Map.Entry<String, JsonNode>> it = queues.properties().iterator(); it.hasNext();) {
                Map.Entry<String, JsonNode> queue = it.next();
                for (String count : COUNTS) {
                    assertThat(cell(queue.getKey(), count).getText()).as(queue.getKey() + " " + count)
                            .isEqualTo(queue.getValue().get(count).asString());
                }
                int workers = 0;
                long prefetched = 0;
                for (JsonNode consumer : queue.getValue().get("consumers")) {
                    workers += consumer.get("workers").asInt();
                    prefetched += consumer.get("prefetched").asLong();
                }
                assertThat(cell(queue.getKey(), "consumers").getAttribute("title")).as(queue.getKey() + " consumers")
                        .isEqualTo(workers + " workers, " + prefetched + " jobs prefetched");
            }
        });
        assertThat(cell(ReceiptMails.QUEUE, "dead").getText()).isEqualTo("1");

        // the dead receipt, with its error, requeued with its button: the second send goes out
        row(ReceiptMails.QUEUE).findElement(By.linkText(ReceiptMails.QUEUE)).click();
        WebElement deadJob = await().atMost(Duration.ofSeconds(10)).until(
                () -> browser.findElements(By.cssSelector("#dead tr[data-job='" + receipt + "']")), rows -> !rows.isEmpty())
                .get(0);
        assertThat(deadJob.getText()).contains("mail gateway unavailable (simulated failure 1 of 1");
        deadJob.findElement(By.cssSelector("button[data-action='requeue-dead']")).click();
        await().atMost(Duration.ofSeconds(15)).until(() -> api.get(paid.id()).receiptSentAt() != null);
        await().atMost(Duration.ofSeconds(10)).until(() -> browser.findElement(By.id("message")).getText()
                .equals(receipt + " requeued"));
        await().atMost(Duration.ofSeconds(10)).until(() -> cell(ReceiptMails.QUEUE, "dead").getText().equals("0"));

        // the order-timeout queue paused with its button, for every instance
        row(OrderTimeouts.QUEUE).findElement(By.cssSelector("button[data-action='pause']")).click();
        await().atMost(Duration.ofSeconds(10)).until(() -> control.state(OrderTimeouts.QUEUE).paused());
        await().atMost(Duration.ofSeconds(10)).until(() -> cell(OrderTimeouts.QUEUE, "state").getText()
                .equals("paused"));
        assertThat(api.get("/actuator/delayqueues").getBody().get("queues").get(OrderTimeouts.QUEUE)
                .get("paused").asBoolean()).isTrue();
        assertThat(row(OrderTimeouts.QUEUE).findElements(By.cssSelector("button[data-action='resume']")))
                .hasSize(1);

        Path screenshot = Path.of("target", "dashboard.png");
        Files.createDirectories(screenshot.getParent());
        Files.copy(((ChromeDriver) browser).getScreenshotAs(OutputType.FILE).toPath(), screenshot,
                StandardCopyOption.REPLACE_EXISTING);
        assertThat(Files.size(screenshot)).isPositive();
    }

    /** A receipt of a newer release (a version the handler does not read yet): dead, after a rollback. */
    @PayloadVersion(2)
    record ReceiptMailV2(long orderId, String channel) {
    }

    @Test
    void deadJobsShowTheirPayloadVersionAndPageOlderAndNewer() {
        // the oldest dead job of 51: a version-2 receipt the version-1 handler cannot read; then 50
        // receipts of orders that do not exist (dead at once, not retryable)
        delays.publish(ReceiptMails.QUEUE, new ReceiptMailV2(-1, "sms"), Duration.ZERO, "newer-release");
        await().atMost(Duration.ofSeconds(15)).until(() -> delays.find(ReceiptMails.QUEUE, "newer-release")
                .map(job -> job.state() == JobState.DEAD).orElse(false));
        for (int i = 0; i < 50; i++) {
            delays.publish(ReceiptMails.QUEUE, new ReceiptMail(-100 - i), Duration.ZERO, "ghost-" + i);
        }
        try {
            SampleApi api = new SampleApi(port);
            await().atMost(Duration.ofSeconds(15)).until(() -> api.get("/actuator/delayqueues/" + ReceiptMails.QUEUE)
                    .getBody().get("dead").get("total").asInt() == 51);

            browser.get("http://127.0.0.1:" + port + "/delay-jobs/?queue=" + ReceiptMails.QUEUE);
            await().atMost(Duration.ofSeconds(10)).until(() -> deadRows().size() == 50);
            assertThat(deadRows()).allSatisfy(row -> assertThat(version(row)).isEqualTo("1"));
            assertThat(text("dead-position")).isEqualTo("jobs 1–50 of 51");
            assertThat(browser.findElement(By.id("dead-newer")).isEnabled()).isFalse();

            browser.findElement(By.id("dead-older")).click();
            await().atMost(Duration.ofSeconds(10)).until(() -> deadRows().size() == 1);
            assertThat(deadRows().get(0).getAttribute("data-job")).isEqualTo("newer-release");
            assertThat(version(deadRows().get(0))).as("the version it was published at").isEqualTo("2");
            assertThat(text("dead-position")).isEqualTo("jobs 51–51 of 51");
            assertThat(browser.findElement(By.id("dead-older")).isEnabled()).as("no page after one not full").isFalse();

            browser.findElement(By.id("dead-newer")).click();
            await().atMost(Duration.ofSeconds(10)).until(() -> deadRows().size() == 50);
            assertThat(text("dead-position")).isEqualTo("jobs 1–50 of 51");
        }
        finally {
            endpoint.act(ReceiptMails.QUEUE, "delete-dead", null, true, null);
        }
    }

    private List<WebElement> deadRows() {
        return browser.findElements(By.cssSelector("#dead tbody tr"));
    }

    private static String version(WebElement deadRow) {
        return deadRow.findElement(By.cssSelector("td[data-field='version']")).getText();
    }

    private String text(String id) {
        return browser.findElement(By.id(id)).getText();
    }

    private WebElement row(String queue) {
        return browser.findElement(By.cssSelector("#queues tr[data-queue='" + queue + "']"));
    }

    private WebElement cell(String queue, String field) {
        return row(queue).findElement(By.cssSelector("td[data-field='" + field + "']"));
    }
}
