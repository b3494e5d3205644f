package dev.delayjobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.delayjobs.test.TestApps;
import dev.delayjobs.test.TestRedis;
import tools.jackson.databind.BeanDescription;
import tools.jackson.databind.DeserializationConfig;
import tools.jackson.databind.JacksonModule;
import tools.jackson.databind.ValueDeserializer;
import tools.jackson.databind.deser.ValueDeserializerModifier;
import tools.jackson.databind.module.SimpleModule;

/**
 * A consumer builds its handlers' payload readers when its containers start, not on the first jobs:
 * built lazily, the first jobs of a burst reaching a cold consumer waited for one worker to build
 * them (150-400 ms of a 10,000-job burst on 2 cores).
 */
class ColdConsumerStartTest {

    record Reminder(long orderId, String text) {
    }

    static class Handlers {

        final List<Reminder> handled = new CopyOnWriteArrayList<>();

        @DelayedHandler(queue = "cold-start")
        void remind(Reminder reminder) {
            handled.add(reminder);
        }
    }

    /** Counts the deserializers the application's mapper builds, by the type they read. */
    @Configuration(proxyBeanMethods = false)
    static class CountingDeserializers {

        static final Map<Class<?>, Integer> BUILT = new ConcurrentHashMap<>();

        @Bean
        JacksonModule countingDeserializers() {
            SimpleModule module = new SimpleModule("counting-deserializers");
            module.setDeserializerModifier(new ValueDeserializerModifier() {

                @Override
                public ValueDeserializer<?> modifyDeserializer(DeserializationConfig config, BeanDescription.Supplier description,
                        ValueDeserializer<?> deserializer) {
                    BUILT.merge(description.getBeanClass(), 1, Integer::sum);
                    return deserializer;
                }
            });
            return module;
        }
    }

    private ConfigurableApplicationContext context;

    @AfterEach
    void close() {
        if (context != null) {
            context.close();
        }
    }

    @Test
    void payloadDeserializerIsBuiltWhenTheContainerStartsAndNotAgainByTheJobs() {
        CountingDeserializers.BUILT.clear();
        context = TestApps.run(TestRedis.uniquePrefix(), List.of(Handlers.class, CountingDeserializers.class));

        assertThat(CountingDeserializers.BUILT).as("built before any job arrived").containsEntry(Reminder.class, 1);

        DelayPublisher publisher = context.getBean(DelayPublisher.class);
        for (int i = 0; i < 20; i++) {
            publisher.publish("cold-start", new Reminder(i, "r" + i), Duration.ZERO);
        }
        Handlers handlers = context.getBean(Handlers.class);
        await().atMost(Duration.ofSeconds(10)).until(() -> handlers.handled.size() == 20);
        assertThat(Set.copyOf(handlers.handled)).contains(new Reminder(7, "r7"));
        assertThat(CountingDeserializers.BUILT).as("the jobs used the one built at start").containsEntry(Reminder.class, 1);
    }
}
