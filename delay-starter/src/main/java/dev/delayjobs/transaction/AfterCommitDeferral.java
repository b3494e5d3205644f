package dev.delayjobs.transaction;

import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import dev.delayjobs.core.PublishDeferral;

/**
 * Defers a publish to the commit of the Spring-managed transaction of the calling thread, with a
 * {@link TransactionSynchronization}: run in {@code afterCommit}, dropped on rollback. Outside an
 * active transaction there is nothing to wait for, and the publish runs at once.
 */
public final class AfterCommitDeferral implements PublishDeferral {

    @Override
    public boolean deferToCommit(Runnable publish) {
        if (!TransactionSynchronizationManager.isSynchronizationActive()
                || !TransactionSynchronizationManager.isActualTransactionActive()) {
            return false;
        }
        TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
            @Override
            public void afterCommit() {
                publish.run();
            }
        });
        return true;
    }
}
