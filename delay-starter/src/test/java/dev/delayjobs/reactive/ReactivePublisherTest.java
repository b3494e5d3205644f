package dev.delayjobs.reactive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.transaction.ReactiveTransaction;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.reactive.AbstractReactiveTransactionManager;
import org.springframework.transaction.reactive.GenericReactiveTransaction;
import org.springframework.transaction.reactive.TransactionSynchronizationManager;
import org.springframework.transaction.reactive.TransactionalOperator;
import reactor.core.publisher.Mono;

import dev.delayjobs.DelayedHandler;
import dev.delayjobs.JobState;
import dev.delayjobs.PublishRequest;
import dev.delayjobs.ReactiveDelayPublisher;
import dev.delayjobs.test.RunningApp;

/**
 * The reactive publisher on the real Redis: its answers match the blocking publisher's (they share
 * one implementation), bad arguments are signalled (not thrown when the Mono is made), nothing is
 * sent before subscription, and a publish that waits for the commit of a reactive transaction is stored after
 * it and never after a rollback.
 */
class ReactivePublisherTest {

    static class Handlers {

        @DelayedHandler(queue = "unused", autoStartup = "false")
        void handle(String text) {
        }
    }

    @RegisterExtension
    static final RunningApp<Handlers> app = RunningApp.of(Handlers.class);

    /** A reactive transaction manager with no resource of its own: only spring-tx's synchronization matters here. */
    static final class SynchronizationOnlyReactiveTransactionManager extends AbstractReactiveTransactionManager {

        @Override
        protected Object doGetTransaction(TransactionSynchronizationManager synchronizationManager) {
            return new Object();
        }

        @Override
        protected Mono<Void> doBegin(TransactionSynchronizationManager synchronizationManager, Object transaction,
                TransactionDefinition definition) {
            return Mono.empty();
        }

        @Override
        protected Mono<Void> doCommit(TransactionSynchronizationManager synchronizationManager, GenericReactiveTransaction status) {
            return Mono.empty();
        }

        @Override
        protected Mono<Void> doRollback(TransactionSynchronizationManager synchronizationManager, GenericReactiveTransaction status) {
            return Mono.empty();
        }
    }

    private final TransactionalOperator transaction = TransactionalOperator.create(new SynchronizationOnlyReactiveTransactionManager());

    private ReactiveDelayPublisher reactive() {
        return app.context().getBean(ReactiveDelayPublisher.class);
    }

    @Test
    void publishesFindsReschedulesAndCancelsAsTheBlockingPublisherDoes() {
        ReactiveDelayPublisher delays = reactive();
        String id = delays.publish("mails", "hello", Duration.ofHours(1)).block();
        assertThat(app.publisher().find("mails", id)).hasValueSatisfying(job -> assertThat(job.state()).isEqualTo(JobState.DELAYED));
        assertThat(delays.publish("mails", "again", Duration.ofHours(1), "k-1").block()).isEqualTo("k-1");
        assertThat(delays.publishAt("mails", "kept", Instant.now(), "k-1").block()).as("an existing key is kept").isEqualTo("k-1");
        assertThat(delays.find("mails", "k-1").block().payloadJson()).isEqualTo("\"again\"");

        Instant due = Instant.now().plus(Duration.ofDays(2)).truncatedTo(java.time.temporal.ChronoUnit.MILLIS);
        assertThat(delays.reschedule("mails", "k-1", due).block()).isTrue();
        assertThat(app.publisher().find("mails", "k-1").orElseThrow().dueAt()).isEqualTo(due);
        assertThat(delays.reschedule("mails", "missing", Duration.ZERO).block()).isFalse();

        assertThat(delays.cancel("mails", "k-1").block()).isTrue();
        assertThat(delays.find("mails", "k-1").blockOptional()).isEmpty();
        assertThat(delays.publishAll("mails", List.of()).block()).isEmpty();
    }

    @Test
    void badArgumentsAreSignalledAndNothingIsSentBeforeSubscription() {
        ReactiveDelayPublisher delays = reactive();
        Mono<String> notSubscribed = delays.publish("mails", "never", Duration.ZERO, "never-sent");
        Mono<String> badQueue = delays.publish("bad queue!", "x", Duration.ZERO);
        assertThatThrownBy(badQueue::block).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("bad queue!");
        assertThatThrownBy(() -> delays.publish("mails", "x", Duration.ofSeconds(-1)).block())
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> delays.publishAll("mails", Arrays.asList(PublishRequest.of("fine").key("fine"), null)).block())
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("request 1: ");
        assertThat(app.publisher().find("mails", "fine")).as("one bad request publishes nothing").isEmpty();
        assertThatThrownBy(() -> delays.cancel("mails", " ").block()).isInstanceOf(IllegalArgumentException.class);
        assertThat(app.publisher().find("mails", "never-sent")).isEmpty();
        assertThat(notSubscribed).isNotNull();
    }

    @Test
    void aPublishThatWaitsForTheCommitIsStoredAfterItAndNeverAfterARollback() {
        ReactiveDelayPublisher delays = reactive();
        String id = delays.publish("mails", PublishRequest.of("committed").delay(Duration.ofHours(1)).afterCommit())
                .flatMap(published -> delays.find("mails", published).map(job -> "stored before the commit")
                        .defaultIfEmpty(published))
                .as(transaction::transactional).block();
        assertThat(id).isNotEqualTo("stored before the commit");
        assertThat(app.publisher().find("mails", id)).as("stored after the commit").isPresent();

        assertThatThrownBy(() -> delays.publish("mails", PublishRequest.of("rolled back").key("rolled-back").afterCommit())
                .then(Mono.error(new IllegalStateException("the order could not be saved")))
                .as(transaction::transactional).block())
                .hasMessage("the order could not be saved");
        assertThat(app.publisher().find("mails", "rolled-back")).isEmpty();

        List<String> ids = delays.publishAll("mails", List.of(PublishRequest.of("later").key("batch-later").afterCommit(),
                PublishRequest.of("now").delay(Duration.ofHours(1)).key("batch-now")))
                .flatMap(published -> delays.find("mails", "batch-later").map(job -> List.of("stored before the commit"))
                        .defaultIfEmpty(published))
                .as(transaction::transactional).block();
        assertThat(ids).containsExactly("batch-later", "batch-now");
        assertThat(app.publisher().find("mails", "batch-later")).isPresent();

        String outside = delays.publish("mails", PublishRequest.of("no transaction").delay(Duration.ofHours(1)).afterCommit()).block();
        assertThat(app.publisher().find("mails", outside)).as("no transaction: stored at once").isPresent();
    }

}
