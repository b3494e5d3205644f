package dev.delayjobs.sample;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.logging.DeferredLogs;
import org.springframework.mock.env.MockEnvironment;

/** When the sample leaves Redis alone; the case where it starts one is the integration test. */
class EmbeddedRedisEnvironmentPostProcessorTest {

    private final EmbeddedRedisEnvironmentPostProcessor postProcessor =
            new EmbeddedRedisEnvironmentPostProcessor(new DeferredLogs());

    @Test
    void startsNothingWhenDisabled() {
        assertNoEmbeddedRedis(new MockEnvironment().withProperty("sample.embedded-redis.enabled", "false"));
    }

    @Test
    void startsNothingWhenAHostIsConfigured() {
        assertNoEmbeddedRedis(new MockEnvironment().withProperty("spring.data.redis.host", "redis.example"));
    }

    @Test
    void startsNothingWhenAUrlIsConfigured() {
        assertNoEmbeddedRedis(new MockEnvironment().withProperty("spring.data.redis.url", "redis://redis.example:6379"));
    }

    @Test
    void startsNothingWhenClusterNodesAreConfigured() {
        assertNoEmbeddedRedis(new MockEnvironment().withProperty("spring.data.redis.cluster.nodes[0]", "a:7000"));
    }

    @Test
    void startsNothingWhenARedissonConfigIsGiven() {
        assertNoEmbeddedRedis(new MockEnvironment().withProperty("spring.redis.redisson.file", "classpath:redisson.yaml"));
    }

    private void assertNoEmbeddedRedis(MockEnvironment environment) {
        postProcessor.postProcessEnvironment(environment, new SpringApplication());
        assertThat(environment.getPropertySources().contains(EmbeddedRedisEnvironmentPostProcessor.PROPERTY_SOURCE))
                .isFalse();
    }
}
