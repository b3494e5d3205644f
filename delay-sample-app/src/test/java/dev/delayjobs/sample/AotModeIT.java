package dev.delayjobs.sample;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

/**
 * The sample runs in Spring AOT mode: the build's {@code process-aot} generated its context, and
 * a JVM started with {@code -Dspring.aot.enabled=true} serves an order and closes it when its
 * payment timeout is up (on the embedded Redis the sample starts). Runs in {@code verify}, after
 * {@code process-aot} (package phase).
 */
class AotModeIT {

    private static final Duration STARTUP = Duration.ofSeconds(90);

    @Test
    void theSampleStartsFromItsAotProcessedContextAndClosesAnUnpaidOrder() throws Exception {
        int port;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = socket.getLocalPort();
        }
        Path log = Files.createTempFile("sample-aot", ".log");
        Process app = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Dspring.aot.enabled=true", "-cp", System.getProperty("java.class.path"),
                SampleApplication.class.getName(), "--server.port=" + port, "--sample.orders.payment-timeout=1s")
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            awaitLine(app, log, "Started SampleApplication");
            assertThat(Files.readString(log)).contains("Starting AOT-processed SampleApplication");

            HttpClient http = HttpClient.newHttpClient();
            HttpResponse<String> created = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/orders"))
                    .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString("{\"amount\": 5.00}"))
                    .build(), HttpResponse.BodyHandlers.ofString());
            assertThat(created.statusCode()).isEqualTo(201);
            Matcher id = Pattern.compile("\"id\":(\\d+)").matcher(created.body());
            assertThat(id.find()).isTrue();

            URI order = URI.create("http://127.0.0.1:" + port + "/orders/" + id.group(1));
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            String body = "";
            while (System.nanoTime() < deadline && !body.contains("\"CLOSED\"")) {
                body = http.send(HttpRequest.newBuilder(order).GET().build(), HttpResponse.BodyHandlers.ofString()).body();
                Thread.sleep(100); // poll interval; bounded by the deadline
            }
            assertThat(body).as("the order's timeout job closed it").contains("\"status\":\"CLOSED\"");
        }
        finally {
            app.destroy();
            if (!app.waitFor(20, TimeUnit.SECONDS)) {
                app.destroyForcibly();
            }
        }
    }

    private static void awaitLine(Process app, Path log, String line) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + STARTUP.toNanos();
        while (System.nanoTime() < deadline) {
            String output = Files.readString(log);
            if (output.contains(line)) {
                return;
            }
            if (!app.isAlive()) {
                throw new AssertionError("the sample exited in AOT mode:\n" + tail(output));
            }
            Thread.sleep(100); // poll interval; bounded by the deadline
        }
        throw new AssertionError("no '" + line + "' within " + STARTUP.toSeconds() + " s:\n" + tail(Files.readString(log)));
    }

    private static String tail(String output) {
        List<String> lines = output.lines().toList();
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
    }
}
