package dev.delayjobs.transaction;

import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

import org.springframework.transaction.NoTransactionException;
import org.springframework.transaction.reactive.TransactionSynchronization;
import org.springframework.transaction.reactive.TransactionSynchronizationManager;
import reactor.core.publisher.Mono;

import dev.delayjobs.core.RedisReactiveDelayPublisher;

/**
 * Defers a reactive publish to the commit of the Spring-managed reactive transaction in the
 * subscriber's context (spring-tx's reactive {@link TransactionSynchronizationManager}): stored in
 * {@code afterCommit}, whose completion the commit waits for, and dropped on rollback. Without an
 * active transaction there is nothing to wait for, and the publish is stored at once.
 */
public final class ReactiveAfterCommitDeferral implements RedisReactiveDelayPublisher.CommitDeferral {

    @Override
    public Mono<Boolean> deferToCommit(Supplier<CompletableFuture<Void>> publish) {
        return TransactionSynchronizationManager.forCurrentTransaction()
                .filter(transaction -> transaction.isSynchronizationActive() && transaction.isActualTransactionActive())
                .map(transaction -> {
                    transaction.registerSynchronization(new TransactionSynchronization() {
                        @Override
                        public Mono<Void> afterCommit() {
                            return Mono.fromFuture(publish, true).then();
                        }
                    });
                    return true;
                })
                .onErrorResume(NoTransactionException.class, none -> Mono.empty())
                .defaultIfEmpty(false);
    }
}
