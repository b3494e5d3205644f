package dev.delayjobs.transaction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.AbstractPlatformTransactionManager;
import org.springframework.transaction.support.DefaultTransactionStatus;
import org.springframework.transaction.support.TransactionTemplate;

import dev.delayjobs.DelayedHandler;
import dev.delayjobs.JobState;
import dev.delayjobs.PublishRequest;
import dev.delayjobs.test.RunningApp;

/**
 * Publishes that wait for the commit of a Spring-managed transaction: stored after commit, never
 * after a rollback, the id known at once; with {@code delay.publisher.after-commit=true} for every
 * request unless it says {@code immediately()}.
 */
class AfterCommitPublishTest {

    static class Handlers {

        final Set<String> handled = ConcurrentHashMap.newKeySet();

        @DelayedHandler(queue = "mails")
        void mail(String mail) {
            handled.add(mail);
        }
    }

    /**
     * A transaction manager with no resource of its own: what matters here is Spring's
     * transaction synchronization, which every real manager (JDBC, JPA, ...) drives the same way.
     */
    static final class SynchronizationOnlyTransactionManager extends AbstractPlatformTransactionManager {

        @Override
        protected Object doGetTransaction() {
            return new Object();
        }

        @Override
        protected void doBegin(Object transaction, TransactionDefinition definition) {
        }

        @Override
        protected void doCommit(DefaultTransactionStatus status) {
        }

        @Override
        protected void doRollback(DefaultTransactionStatus status) {
        }
    }

    @RegisterExtension
    static final RunningApp<Handlers> app = RunningApp.of(Handlers.class, "delay.publisher.after-commit=true");

    private final TransactionTemplate transaction = new TransactionTemplate(new SynchronizationOnlyTransactionManager());

    @Test
    void aCommittedTransactionsJobIsStoredAfterTheCommitWithTheIdReturnedAtOnce() {
        String id = transaction.execute(status -> {
            String published = app.publisher().publish("mails", "committed", Duration.ofHours(1));
            assertThat(app.publisher().find("mails", published)).as("not stored before the commit").isEmpty();
            return published;
        });
        assertThat(app.publisher().find("mails", id)).hasValueSatisfying(job -> assertThat(job.state()).isEqualTo(JobState.DELAYED));
    }

    @Test
    void aRolledBackTransactionLeavesNoJob() {
        String[] id = new String[1];
        transaction.executeWithoutResult(status -> {
            id[0] = app.publisher().publish("mails", "rolled-back", Duration.ZERO, "rolled-back");
            status.setRollbackOnly();
        });
        assertThatThrownBy(() -> transaction.executeWithoutResult(status -> {
            app.publisher().publish("mails", "thrown", Duration.ZERO, "thrown");
            throw new IllegalStateException("the order could not be saved");
        })).hasMessage("the order could not be saved");

        String after = app.publisher().publish("mails", "published-after", Duration.ZERO);
        await().atMost(Duration.ofSeconds(10)).until(() -> app.handlers().handled.contains("published-after"));
        assertThat(id[0]).isEqualTo("rolled-back");
        assertThat(app.publisher().find("mails", "rolled-back")).isEmpty();
        assertThat(app.publisher().find("mails", "thrown")).isEmpty();
        assertThat(app.handlers().handled).doesNotContain("rolled-back", "thrown");
        assertThat(after).isNotNull();
    }

    @Test
    void immediatelyStoresInsideTheTransactionAndABatchKeepsItsOrder() {
        List<String> ids = transaction.execute(status -> {
            List<String> published = app.publisher().publishAll("mails", List.of(
                    PublishRequest.of("later").delay(Duration.ofHours(1)).key("batch-later"),
                    PublishRequest.of("now").delay(Duration.ofHours(1)).key("batch-now").immediately()));
            assertThat(app.publisher().find("mails", "batch-now")).as("stored at once").isPresent();
            assertThat(app.publisher().find("mails", "batch-later")).as("waits for the commit").isEmpty();
            status.setRollbackOnly();
            return published;
        });
        assertThat(ids).containsExactly("batch-later", "batch-now");
        assertThat(app.publisher().find("mails", "batch-now")).isPresent();
        assertThat(app.publisher().find("mails", "batch-later")).isEmpty();
    }

    @Test
    void outsideATransactionTheJobIsStoredAtOnce() {
        String id = app.publisher().publish("mails", PublishRequest.of("no transaction").delay(Duration.ofHours(1)).afterCommit());
        assertThat(app.publisher().find("mails", id)).isPresent();
    }
}
