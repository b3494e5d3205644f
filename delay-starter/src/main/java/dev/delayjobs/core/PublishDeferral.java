package dev.delayjobs.core;

/**
 * Where the publisher hands a publish that asked to wait for the current transaction's commit.
 * The starter's implementation is {@code dev.delayjobs.transaction.AfterCommitDeferral}; without
 * Spring's transaction support nothing is deferred.
 */
@FunctionalInterface
public interface PublishDeferral {

    /** Defers nothing: every publish runs at once. */
    PublishDeferral NONE = publish -> false;

    /**
     * Registers {@code publish} to run after the current transaction commits (and never, if it
     * rolls back). Returns {@code false}, running nothing, when there is no transaction to wait for.
     */
    boolean deferToCommit(Runnable publish);
}
