package dev.delayjobs.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.context.annotation.Bean;

import dev.delayjobs.DelayedHandler;
import dev.delayjobs.core.DelayQueueObserver;
import dev.delayjobs.test.RunningApp;

/** An observer that throws (a broken metrics hook) costs neither a worker nor a job. */
class ObserverFailureTest {

    static class Handlers {

        final Set<String> handled = ConcurrentHashMap.newKeySet();

        @DelayedHandler(queue = "mails", concurrency = "1")
        void mail(String mail) {
            handled.add(mail);
        }

        @Bean
        static DelayQueueObserver brokenObserver() {
            return new DelayQueueObserver() {
                @Override
                public void started(String queue, Duration lateness) {
                    throw new IllegalStateException("metrics backend down");
                }

                @Override
                public void finished(String queue, Outcome outcome, Duration duration) {
                    throw new IllegalStateException("metrics backend down");
                }
            };
        }
    }

    @RegisterExtension
    static final RunningApp<Handlers> app = RunningApp.of(Handlers.class);

    @Test
    void everyJobIsHandledOnOneWorkerThoughTheObserverThrowsEachTime() {
        for (int i = 0; i < 5; i++) {
            app.publisher().publish("mails", "mail-" + i, Duration.ZERO, "mail-" + i);
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> app.handlers().handled.size() == 5);
        await().atMost(Duration.ofSeconds(10)).until(() -> app.publisher().find("mails", "mail-4").isEmpty());
        assertThat(app.publisher().find("mails", "mail-0")).as("acked, not left RUNNING").isEmpty();
    }
}
