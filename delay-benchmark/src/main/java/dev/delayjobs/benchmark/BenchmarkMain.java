package dev.delayjobs.benchmark;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;

import dev.delayjobs.embeddedredis.RedisServerProcess;
import org.redisson.api.RedissonClient;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import dev.delayjobs.DelayPublisher;
import dev.delayjobs.listener.ListenerContainer;
import dev.delayjobs.listener.ListenerContainerRegistry;

/**
 * Runs every scenario for the starter and for Redisson's RDelayedQueue on the same Redis, one
 * engine at a time (the database is flushed between phases), and prints one table.
 *
 * <pre>
 * java -jar delay-benchmark/target/delay-benchmark.jar [--redis=redis://127.0.0.1:6379]
 *     [--scenarios=publish,rate,throughput,backlog] [--engines=starter,anchor] [--quick] ...
 * </pre>
 *
 * With {@code --redis} the given server is used and FLUSHALLed between phases: never point it at a
 * Redis that holds data you need.
 */
public final class BenchmarkMain {

    private BenchmarkMain() {
    }

    public static void main(String[] args) throws Exception {
        BenchmarkOptions options = BenchmarkOptions.parse(args);
        RedisServerProcess server = null;
        String host = "127.0.0.1";
        int port;
        if (options.redisUrl != null) {
            URI uri = URI.create(options.redisUrl);
            host = uri.getHost();
            port = uri.getPort() > 0 ? uri.getPort() : 6379;
        }
        else {
            // Redis from the PATH (e.g. the OS's 7.x) when there is one, else the bundled 6.2
            server = RedisServerProcess.builder().binary(RedisServerProcess.onPath().orElse(null)).start();
            port = server.port();
        }
        try (RedisProbe probe = new RedisProbe(host, port)) {
            probe.flushAll();
            String redisInfo = "Redis " + probe.version() + " (" + (server != null ? server.binary() : options.redisUrl) + ")";
            System.out.println("# delay-benchmark on " + redisInfo + ", " + Runtime.getRuntime().availableProcessors()
                    + " CPUs, Java " + System.getProperty("java.version") + ", options " + options);
            ConfigurableApplicationContext context = new SpringApplicationBuilder(BenchApp.class)
                    .web(WebApplicationType.NONE)
                    .properties("spring.data.redis.host=" + host, "spring.data.redis.port=" + port,
                            "spring.main.banner-mode=off", "logging.level.root=warn",
                            "logging.level.org.redisson.RedissonDelayedQueue=off",
                            "logging.level.org.redisson.client.handler.PingConnectionHandler=off",
                            "benchmark.concurrency=" + options.concurrency)
                    .run();
            try {
                ListenerContainer container = context.getBean(ListenerContainerRegistry.class)
                        .getContainer(StarterEngine.QUEUE).orElseThrow();
                AnchorEngine anchor = options.engines.contains("anchor")
                        ? new AnchorEngine(context.getBean(RedissonClient.class), options.concurrency) : null;
                BenchmarkReport report = new BenchmarkReport(options.dumpLate);
                new ScenarioRuns(options, probe, new StarterEngine(context.getBean(DelayPublisher.class)), anchor,
                        container, report).run();
                String table = report.table(redisInfo);
                System.out.println();
                System.out.println(table);
                if (options.output != null) {
                    // target/ at the top of a fresh clone does not exist before the first full build
                    Path parent = options.output.toAbsolutePath().getParent();
                    if (parent != null) {
                        Files.createDirectories(parent);
                    }
                    Files.writeString(options.output, table);
                    System.out.println("table written to " + options.output);
                }
                if (anchor != null) {
                    anchor.close();
                }
            }
            finally {
                context.close();
            }
        }
        finally {
            if (server != null) {
                server.close();
            }
        }
        System.exit(0);
    }
}
