package dev.delayjobs.testing;

import java.util.List;

import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.test.context.ContextConfigurationAttributes;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.ContextCustomizerFactory;
import org.springframework.test.context.MergedContextConfiguration;
import org.springframework.test.context.TestContextAnnotationUtils;

import dev.delayjobs.embeddedredis.RedisServerProcess;

/** Gives the context of an {@link EmbeddedRedis} test the connection details of the shared Redis. */
final class EmbeddedRedisContextCustomizerFactory implements ContextCustomizerFactory {

    @Override
    public ContextCustomizer createContextCustomizer(Class<?> testClass, List<ContextConfigurationAttributes> configAttributes) {
        boolean annotated = TestContextAnnotationUtils.hasAnnotation(testClass, EmbeddedRedis.class)
                || MergedAnnotations.from(testClass, MergedAnnotations.SearchStrategy.TYPE_HIERARCHY).isPresent(EmbeddedRedis.class);
        return annotated ? new Customizer() : null;
    }

    /** All equal, so the contexts of tests that differ in nothing else are cached and shared. */
    private static final class Customizer implements ContextCustomizer {

        @Override
        public void customizeContext(ConfigurableApplicationContext context, MergedContextConfiguration config) {
            RedisServerProcess server = SharedRedisServer.get();
            ConfigurableListableBeanFactory beans = context.getBeanFactory();
            DataRedisConnectionDetails details = new DataRedisConnectionDetails() {
                @Override
                public Standalone getStandalone() {
                    return Standalone.of(server.host(), server.port());
                }
            };
            beans.registerSingleton("embeddedRedisConnectionDetails", details);
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof Customizer;
        }

        @Override
        public int hashCode() {
            return Customizer.class.hashCode();
        }
    }
}
