package dev.delayjobs.redis;

import static dev.delayjobs.test.ClaimRequests.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static dev.delayjobs.test.TestPartitions.whole;

import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import dev.delayjobs.store.StoredJob;
import dev.delayjobs.JobState;
import dev.delayjobs.embeddedredis.RedisServerProcess;

/**
 * The starter over TLS ({@code rediss://}): a Redis that listens with a self-signed certificate
 * made by the test (the JDK's keytool; Redis reads the key and certificate as PEM), and a Redisson
 * client that trusts only that certificate. Every script, the wait and the wake subscription work;
 * plain text to the TLS port gets nowhere.
 */
class TlsTest {

    static Path dir;
    static RedisServerProcess server;
    static int tlsPort;
    static RedissonClient redisson;

    @BeforeAll
    static void start() throws Exception {
        dir = Files.createTempDirectory("delay-tls");
        Path keystore = dir.resolve("redis.p12");
        Process keytool = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-genkeypair", "-alias", "redis", "-keyalg", "RSA", "-keysize", "2048", "-validity", "2",
                "-dname", "CN=localhost", "-ext", "SAN=ip:127.0.0.1,dns:localhost", "-storetype", "PKCS12",
                "-keystore", keystore.toString(), "-storepass", "changeit", "-keypass", "changeit")
                .redirectErrorStream(true).start();
        assertThat(keytool.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(keytool.exitValue()).as(new String(keytool.getInputStream().readAllBytes(), StandardCharsets.UTF_8))
                .isZero();
        KeyStore store = KeyStore.getInstance("PKCS12");
        try (InputStream in = new FileInputStream(keystore.toFile())) {
            store.load(in, "changeit".toCharArray());
        }
        Path key = dir.resolve("redis.key");
        Path cert = dir.resolve("redis.crt");
        Files.writeString(key, pem("PRIVATE KEY", store.getKey("redis", "changeit".toCharArray()).getEncoded()));
        Files.writeString(cert, pem("CERTIFICATE", store.getCertificate("redis").getEncoded()));
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry("redis", store.getCertificate("redis"));
        Path truststore = dir.resolve("trust.p12");
        try (var out = Files.newOutputStream(truststore)) {
            trust.store(out, "changeit".toCharArray());
        }

        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            tlsPort = socket.getLocalPort();
        }
        server = RedisServerProcess.start("--tls-port", Integer.toString(tlsPort), "--tls-cert-file", cert.toString(),
                "--tls-key-file", key.toString(), "--tls-auth-clients", "no");
        Config config = new Config();
        config.useSingleServer().setAddress("rediss://127.0.0.1:" + tlsPort)
                .setSslTruststore(truststore.toUri().toURL()).setSslTruststorePassword("changeit");
        redisson = Redisson.create(config);
    }

    @AfterAll
    static void stop() {
        if (redisson != null) {
            redisson.shutdown();
        }
        if (server != null) {
            server.close();
        }
    }

    @Test
    void publishClaimAckAndTheWakeWorkOverTls() {
        RedisJobStore store = new RedisJobStore(redisson, "tls");
        long[] woken = { 0 };
        try (ChannelSubscription wake = store.subscribeWake(whole("q"), due -> woken[0] = due)) {
            store.publish(whole("q"), List.of(new NewJob("later", true, 60_000, false, "1"), new NewJob("now", true, 0, false, "2")));
            assertThat(store.find(whole("q"), "later").orElseThrow().state()).isEqualTo(JobState.DELAYED);
            StoredJob job = store.partition(whole("q")).claim(request("i1", 1, Duration.ofSeconds(10), store.partition(whole("q")).releaseAllBut("i1", List.of(), 1).fence()))
                    .jobs().get(0);
            assertThat(job.id()).isEqualTo("now");
            assertThat(store.partition(whole("q")).ack("i1", List.of(job))).isEqualTo(1);
            assertThat(store.partition(whole("q")).awaitReady(Duration.ofSeconds(1))).as("ready is empty: the wait times out").isFalse();
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> woken[0] > 0);
        }
    }

    @Test
    void plainTextToTheTlsPortGetsNoAnswer() {
        assertThatThrownBy(() -> {
            try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), tlsPort)) {
                socket.setSoTimeout(2000);
                socket.getOutputStream().write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
                int read = socket.getInputStream().read();
                if (read < 0) {
                    throw new IOException("closed without an answer");
                }
                throw new AssertionError("a plain-text PING was answered");
            }
        }).isInstanceOf(IOException.class);
    }

    private static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n" + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                .encodeToString(der) + "\n-----END " + type + "-----\n";
    }
}
