package dev.delayjobs.fault;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.redisson.spring.starter.RedissonAutoConfigurationCustomizer;
import org.redisson.spring.starter.RedissonAutoConfigurationV4;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.context.PropertyPlaceholderAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.event.EventListener;
import org.springframework.core.env.Environment;

import dev.delayjobs.DelayedHandler;
import dev.delayjobs.DelayedJob;
import dev.delayjobs.autoconfigure.DelayAutoConfiguration;
import dev.delayjobs.autoconfigure.DelayBridgeAutoConfiguration;

/**
 * A consumer application of its own, run as a separate JVM by {@link ConsumerProcess}: the
 * starter, and one handler on {@code fault.queue} that appends one line per handled job to
 * {@code fault.log} ({@link HandledLog}). Fault tests kill it, terminate it and start it again.
 *
 * <p>The handler sleeps for the job's {@link Work} time, then writes the line; a negative time
 * makes the attempt throw instead (the soak's failing handlers). A job whose id
 * starts with {@code fault.halt-on} (when set) is a poison job: the handler writes its line as it
 * starts and kills its own JVM at once ({@code Runtime.halt}), on every delivery. With
 * {@code fault.id-from-payload=true} a line names the job {@code work-<n>} instead of by its id: a
 * queue in compatibility mode gives each element an id of its own. With {@code fault.halt-before-tick=true}
 * the JVM halts as it is about to send its first {@code tick.lua} call ({@link TickHalt}).
 * With {@code fault.log-runs=true} every call also writes its start and end to
 * {@code <fault.log>.runs} ({@link RunLog}).
 *
 * <p>Only the auto-configurations a consumer needs are imported: with all of those on the test
 * class path (web, actuator, ...), a JVM took several times longer to start on the 2-core CI machine.
 */
@SpringBootConfiguration
@ImportAutoConfiguration({ PropertyPlaceholderAutoConfiguration.class, JacksonAutoConfiguration.class,
        RedissonAutoConfigurationV4.class, DelayAutoConfiguration.class, DelayBridgeAutoConfiguration.class })
public class ConsumerMain {

    /**
     * The payload: a job number and how long handling it takes, on its first delivery and on any
     * later one (a job that is slow the first time, and quick once handed to another consumer).
     */
    public record Work(int n, long firstWorkMs, long laterWorkMs) {

        static Work of(int n, long workMs) {
            return new Work(n, workMs, workMs);
        }
    }

    public static void main(String[] args) {
        new SpringApplicationBuilder(ConsumerMain.class).web(WebApplicationType.NONE).run(args);
    }

    @Bean
    Handler faultHandler(Environment environment) {
        String log = environment.getRequiredProperty("fault.log");
        return new Handler(HandledLog.appender(Path.of(log)),
                environment.getProperty("fault.log-runs", Boolean.class, false) ? RunLog.appender(Path.of(log + ".runs")) : null,
                environment.getProperty("fault.halt-on", ""),
                environment.getProperty("fault.id-from-payload", Boolean.class, false));
    }

    @Bean
    @ConditionalOnProperty("fault.halt-before-tick")
    RedissonAutoConfigurationCustomizer haltBeforeTick() {
        return config -> config.setNettyHook(new TickHalt());
    }

    /** Tells the test that the consumer runs: its containers have started. */
    @EventListener(ApplicationReadyEvent.class)
    void ready(ApplicationReadyEvent event) {
        Path marker = Path.of(event.getApplicationContext().getEnvironment().getRequiredProperty("fault.log") + ".ready");
        try {
            Files.writeString(marker, Long.toString(ProcessHandle.current().pid()));
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    static final class Handler {

        private final HandledLog.Appender log;
        private final RunLog.Appender runs;
        private final String haltOn;
        private final boolean idFromPayload;

        Handler(HandledLog.Appender log, RunLog.Appender runs, String haltOn, boolean idFromPayload) {
            this.log = log;
            this.runs = runs;
            this.haltOn = haltOn;
            this.idFromPayload = idFromPayload;
        }

        @DelayedHandler(queue = "${fault.queue}", concurrency = "${fault.concurrency:4}")
        void handle(DelayedJob<Work> job) throws InterruptedException {
            long startedAt = System.currentTimeMillis();
            if (runs == null) {
                work(job, startedAt);
                return;
            }
            long run = runs.started(name(job), startedAt, job.dueAt().toEpochMilli());
            try {
                work(job, startedAt);
            }
            finally {
                // before the call returns, so before its ack (or retry) can free the job's group
                runs.ended(run);
            }
        }

        private String name(DelayedJob<Work> job) {
            return idFromPayload ? "work-" + job.payload().n() : job.id();
        }

        private void work(DelayedJob<Work> job, long startedAt) throws InterruptedException {
            if (!haltOn.isEmpty() && job.id().startsWith(haltOn)) {
                log.append(job, startedAt, startedAt);
                Runtime.getRuntime().halt(137);
            }
            long workMs = job.attempt() == 1 ? job.payload().firstWorkMs() : job.payload().laterWorkMs();
            if (workMs < 0) {
                throw new IllegalStateException("failing attempt " + job.attempt() + " on purpose");
            }
            if (workMs > 0) {
                Thread.sleep(workMs);
            }
            log.append(name(job), job, startedAt, System.currentTimeMillis());
        }
    }
}
