package dev.delayjobs.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.redisson.client.codec.StringCodec;
import org.redisson.spring.starter.RedissonAutoConfigurationV4;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalyzedException;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.delayjobs.redis.DataFormat;
import dev.delayjobs.test.TestRedis;

/** The data format under a key prefix is recorded by the first application and checked by every later one. */
class DataFormatCheckTest {

    private final String prefix = TestRedis.uniquePrefix();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(RedissonAutoConfigurationV4.class, JacksonAutoConfiguration.class,
                    DelayAutoConfiguration.class))
            .withPropertyValues("spring.data.redis.host=" + TestRedis.host(), "spring.data.redis.port=" + TestRedis.port(),
                    "delay.key-prefix=" + prefix);

    @Test
    void theFirstApplicationUnderAPrefixRecordsItsFormatAndTheNextOnesStartOnIt() {
        runner.run(context -> assertThat(context).hasNotFailed());
        assertThat(recorded()).isEqualTo(String.valueOf(DataFormat.CURRENT));
        runner.run(context -> assertThat(context).hasNotFailed());
        assertThat(recorded()).isEqualTo(String.valueOf(DataFormat.CURRENT));
    }

    @Test
    void jobsWrittenInANewerFormatStopTheStartupWithAnAnalysisNamingBothVersions() {
        int newer = DataFormat.CURRENT + 1;
        TestRedis.sharedClient().getBucket(prefix + ":format", StringCodec.INSTANCE).set(String.valueOf(newer));
        runner.run(context -> {
            assertThat(context).hasFailed();
            Throwable cause = context.getStartupFailure();
            while (!(cause instanceof FailureAnalyzedException)) {
                cause = cause.getCause();
            }
            FailureAnalyzedException analyzed = (FailureAnalyzedException) cause;
            assertThat(analyzed.analysis().getDescription()).contains("data format " + newer)
                    .contains("reads format " + DataFormat.CURRENT);
            assertThat(analyzed.analysis().getAction()).contains("delay.key-prefix");
        });
        // nothing was overwritten: the newer release still finds its own format
        assertThat(recorded()).isEqualTo(String.valueOf(newer));
    }

    private String recorded() {
        return TestRedis.sharedClient().<String>getBucket(prefix + ":format", StringCodec.INSTANCE).get();
    }
}
