package dev.delayjobs.listener;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.redisson.spring.starter.RedissonAutoConfigurationV4;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.context.PropertyPlaceholderAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.delayjobs.DelayedHandler;
import dev.delayjobs.DelayedJob;
import dev.delayjobs.autoconfigure.DelayAutoConfiguration;
import dev.delayjobs.test.TestRedis;

/**
 * A {@code @DelayedHandler} that cannot work fails startup with a message naming its bean and
 * method; attributes resolve placeholders and SpEL, and fall back to {@code delay.queues.<q>.*}.
 */
class HandlerValidationTest {

    record Ping(String id) {
    }

    // PropertyPlaceholderAutoConfiguration: as in every Spring Boot application, unresolvable
    // placeholders in annotation attributes are errors rather than left as they are
    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(PropertyPlaceholderAutoConfiguration.class,
                    RedissonAutoConfigurationV4.class, JacksonAutoConfiguration.class, DelayAutoConfiguration.class))
            .withPropertyValues("spring.data.redis.host=" + TestRedis.host(),
                    "spring.data.redis.port=" + TestRedis.port(),
                    "delay.key-prefix=" + TestRedis.uniquePrefix());

    // --- signatures ---------------------------------------------------------------------------

    static class TwoParameters {

        @DelayedHandler(queue = "two")
        void handle(Ping ping, String extra) {
        }
    }

    @Test
    void handlerWithTwoParametersFailsStartup() {
        runner.withBean("twoParameters", TwoParameters.class).run(context -> assertFailure(context,
                "bean 'twoParameters'", "TwoParameters.handle(Ping, String)", "exactly one parameter"));
    }

    static class NoParameter {

        @DelayedHandler(queue = "none")
        void handle() {
        }
    }

    @Test
    void handlerWithoutParameterFailsStartup() {
        runner.withBean("noParameter", NoParameter.class).run(context -> assertFailure(context,
                "bean 'noParameter'", "NoParameter.handle()", "exactly one parameter"));
    }

    static class RawDelayedJob {

        @SuppressWarnings("rawtypes")
        @DelayedHandler(queue = "raw")
        void handle(DelayedJob job) {
        }
    }

    @Test
    void handlerWithRawDelayedJobFailsStartup() {
        runner.withBean("rawDelayedJob", RawDelayedJob.class).run(context -> assertFailure(context,
                "bean 'rawDelayedJob'", "RawDelayedJob.handle(DelayedJob)", "payload type"));
    }

    static class FirstOnShared {

        @DelayedHandler(queue = "shared")
        void first(Ping ping) {
        }
    }

    static class SecondOnShared {

        @DelayedHandler(queue = "shared")
        void second(DelayedJob<Ping> job) {
        }
    }

    @Test
    void twoHandlersForOneQueueFailStartupNamingBoth() {
        runner.withBean("firstOnShared", FirstOnShared.class)
                .withBean("secondOnShared", SecondOnShared.class)
                .run(context -> assertFailure(context, "'shared'", "bean 'firstOnShared'", "FirstOnShared.first(Ping)",
                        "bean 'secondOnShared'", "SecondOnShared.second(DelayedJob)"));
    }

    // --- attributes ---------------------------------------------------------------------------

    static class InvalidQueueName {

        @DelayedHandler(queue = "bad{name}")
        void handle(Ping ping) {
        }
    }

    @Test
    void invalidQueueNameFailsStartup() {
        runner.withBean("invalidQueueName", InvalidQueueName.class).run(context -> assertFailure(context,
                "bean 'invalidQueueName'", "InvalidQueueName.handle(Ping)", "invalid queue name 'bad{name}'"));
    }

    static class UnresolvableQueue {

        @DelayedHandler(queue = "${missing.queue}")
        void handle(Ping ping) {
        }
    }

    @Test
    void unresolvableQueuePlaceholderFailsStartup() {
        runner.withBean("unresolvableQueue", UnresolvableQueue.class).run(context -> assertFailure(context,
                "bean 'unresolvableQueue'", "UnresolvableQueue.handle(Ping)", "queue = '${missing.queue}'",
                "Could not resolve placeholder 'missing.queue'"));
    }

    static class ConcurrencyNotANumber {

        @DelayedHandler(queue = "nan", concurrency = "abc")
        void handle(Ping ping) {
        }
    }

    @Test
    void concurrencyThatIsNotANumberFailsStartup() {
        runner.withBean("concurrencyNotANumber", ConcurrencyNotANumber.class).run(context -> assertFailure(context,
                "bean 'concurrencyNotANumber'", "ConcurrencyNotANumber.handle(Ping)", "concurrency = 'abc' cannot be read"));
    }

    static class ZeroConcurrency {

        @DelayedHandler(queue = "zero", concurrency = "0")
        void handle(Ping ping) {
        }
    }

    @Test
    void zeroConcurrencyFailsStartup() {
        runner.withBean("zeroConcurrency", ZeroConcurrency.class).run(context -> assertFailure(context,
                "bean 'zeroConcurrency'", "ZeroConcurrency.handle(Ping)", "concurrency must be between 1 and 1000"));
    }

    static class HugeConcurrency {

        @DelayedHandler(queue = "huge", concurrency = "4000")
        void handle(Ping ping) {
        }
    }

    @Test
    void concurrencyAboveTheTestedMaximumFailsStartup() {
        runner.withBean("hugeConcurrency", HugeConcurrency.class).run(context -> assertFailure(context,
                "bean 'hugeConcurrency'", "HugeConcurrency.handle(Ping)", "concurrency must be between 1 and 1000"));
    }

    static class MissingMaxAttempts {

        @DelayedHandler(queue = "missing", maxAttempts = "${missing.property}")
        void handle(Ping ping) {
        }
    }

    @Test
    void unresolvableMaxAttemptsPlaceholderFailsStartup() {
        runner.withBean("missingMaxAttempts", MissingMaxAttempts.class).run(context -> assertFailure(context,
                "bean 'missingMaxAttempts'", "MissingMaxAttempts.handle(Ping)", "maxAttempts = '${missing.property}'",
                "Could not resolve placeholder 'missing.property'"));
    }

    static class BrokenExpression {

        @DelayedHandler(queue = "spel", maxAttempts = "#{1 +}")
        void handle(Ping ping) {
        }
    }

    @Test
    void maxAttemptsExpressionThatDoesNotParseFailsStartup() {
        runner.withBean("brokenExpression", BrokenExpression.class).run(context -> assertFailure(context,
                "bean 'brokenExpression'", "BrokenExpression.handle(Ping)", "maxAttempts = '#{1 +}' cannot be resolved"));
    }

    static class BackoffNotADuration {

        @DelayedHandler(queue = "soon", backoffInitial = "soon")
        void handle(Ping ping) {
        }
    }

    @Test
    void backoffInitialThatIsNotADurationFailsStartup() {
        runner.withBean("backoffNotADuration", BackoffNotADuration.class).run(context -> assertFailure(context,
                "bean 'backoffNotADuration'", "BackoffNotADuration.handle(Ping)", "backoffInitial = 'soon' cannot be read"));
    }

    static class TimeoutNotADuration {

        @DelayedHandler(queue = "timeout-typo", handlerTimeout = "a while")
        void handle(Ping ping) {
        }
    }

    @Test
    void handlerTimeoutThatIsNotADurationFailsStartup() {
        runner.withBean("timeoutNotADuration", TimeoutNotADuration.class).run(context -> assertFailure(context,
                "bean 'timeoutNotADuration'", "TimeoutNotADuration.handle(Ping)", "handlerTimeout = 'a while' cannot be read"));
    }

    static class NegativeTimeout {

        @DelayedHandler(queue = "timeout-negative", handlerTimeout = "-1s")
        void handle(Ping ping) {
        }
    }

    @Test
    void handlerTimeoutThatIsNotPositiveFailsStartup() {
        runner.withBean("negativeTimeout", NegativeTimeout.class).run(context -> assertFailure(context,
                "@DelayedHandler(queue = \"timeout-negative\")", "NegativeTimeout.handle(Ping)",
                "handler-timeout must be positive"));
    }

    // --- resolution ---------------------------------------------------------------------------

    static class Resolved {

        @DelayedHandler(queue = "${x.queue}", concurrency = "${x.workers}", maxAttempts = "#{2 + 3}",
                backoffInitial = "${x.backoff:250ms}", backoffMultiplier = "#{${x.factor} * 2}", autoStartup = "false")
        void handle(DelayedJob<Map<String, Object>> job) {
        }
    }

    @Test
    void attributesResolvePlaceholdersAndSpel() {
        runner.withBean(Resolved.class)
                .withPropertyValues("x.queue=resolved-q", "x.workers=3", "x.factor=1.5")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    ListenerContainer container = context.getBean(ListenerContainerRegistry.class)
                            .getContainer("resolved-q").orElseThrow();
                    QueueSettings settings = container.settings();
                    assertThat(settings.concurrency()).isEqualTo(3);
                    assertThat(settings.maxAttempts()).isEqualTo(5);
                    assertThat(settings.backoff().initial()).isEqualTo(Duration.ofMillis(250));
                    assertThat(settings.backoff().multiplier()).isEqualTo(3.0);
                    assertThat(settings.autoStartup()).isFalse();
                    assertThat(container.isRunning()).as("autoStartup = false").isFalse();
                });
    }

    static class FromProperties {

        @DelayedHandler(queue = "props-q")
        void handle(Ping ping) {
        }
    }

    static class AnnotationAndProperties {

        @DelayedHandler(queue = "both-q", maxAttempts = "2", handlerTimeout = "${x.timeout:3s}")
        void handle(Ping ping) {
        }
    }

    @Test
    void queuePropertiesApplyWhereTheAnnotationIsSilentAndTheAnnotationWinsWhereItSpeaks() {
        runner.withBean(FromProperties.class)
                .withBean(AnnotationAndProperties.class)
                .withPropertyValues("delay.queues.props-q.max-attempts=7", "delay.queues.props-q.concurrency=2",
                        "delay.queues.both-q.max-attempts=7", "delay.queues.both-q.concurrency=4",
                        "delay.consumer.max-attempts=9", "delay.queues.props-q.handler-timeout=40s",
                        "delay.queues.both-q.handler-timeout=50s", "delay.consumer.handler-timeout=60s")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    ListenerContainerRegistry registry = context.getBean(ListenerContainerRegistry.class);
                    QueueSettings fromProperties = registry.getContainer("props-q").orElseThrow().settings();
                    assertThat(fromProperties.maxAttempts()).isEqualTo(7);
                    assertThat(fromProperties.concurrency()).isEqualTo(2);
                    assertThat(fromProperties.handlerTimeout()).isEqualTo(Duration.ofSeconds(40));
                    QueueSettings both = registry.getContainer("both-q").orElseThrow().settings();
                    assertThat(both.maxAttempts()).as("the annotation wins").isEqualTo(2);
                    assertThat(both.concurrency()).as("the annotation is silent").isEqualTo(4);
                    assertThat(both.handlerTimeout()).as("the annotation wins").isEqualTo(Duration.ofSeconds(3));
                });
    }

    @Test
    void globalConsumerDefaultsApplyWhenNeitherAnnotationNorQueuePropertiesSayAnything() {
        runner.withBean(FromProperties.class)
                .withPropertyValues("delay.consumer.max-attempts=9", "delay.consumer.concurrency=5",
                        "delay.consumer.backoff.initial=2s")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    QueueSettings settings = context.getBean(ListenerContainerRegistry.class).getContainer("props-q")
                            .orElseThrow().settings();
                    assertThat(settings.maxAttempts()).isEqualTo(9);
                    assertThat(settings.concurrency()).isEqualTo(5);
                    assertThat(settings.backoff().initial()).isEqualTo(Duration.ofSeconds(2));
                    assertThat(settings.handlerTimeout()).isNull();
                });
        runner.withBean(FromProperties.class)
                .withPropertyValues("delay.consumer.handler-timeout=90s")
                .run(context -> assertThat(context.getBean(ListenerContainerRegistry.class).getContainer("props-q")
                        .orElseThrow().settings().handlerTimeout()).isEqualTo(Duration.ofSeconds(90)));
    }

    // --- helpers ------------------------------------------------------------------------------

    /** Startup failed, and the messages along the cause chain contain every fragment. */
    private static void assertFailure(AssertableApplicationContext context, String... fragments) {
        assertThat(context).hasFailed();
        String messages = String.join("\n", messages(context.getStartupFailure()));
        assertThat(messages).contains(fragments);
    }

    private static List<String> messages(Throwable failure) {
        List<String> messages = new ArrayList<>();
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            messages.add(t.getClass().getName() + ": " + t.getMessage());
        }
        return messages;
    }
}
