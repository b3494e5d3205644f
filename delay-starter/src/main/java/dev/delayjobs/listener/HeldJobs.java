package dev.delayjobs.listener;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.delayjobs.store.StoredJob;

/**
 * The jobs of one queue this instance is handling, or whose ack is pending, by id; and whether it
 * may hold jobs in Redis that it does not know of (a claim or an outcome whose reply was lost),
 * which the claimer then hands back before its next claim.
 */
final class HeldJobs {

    private final Map<String, Execution> inFlight = new ConcurrentHashMap<>();
    private volatile boolean unknown;

    void add(Execution execution) {
        inFlight.put(execution.job.id(), execution);
    }

    /** {@code execution} is done here (not a newer claim of its id). */
    void remove(Execution execution) {
        inFlight.remove(execution.job.id(), execution);
    }

    /** The ack of {@code job} was recorded, or given up: it leaves (not a newer claim of its id). */
    void settled(StoredJob job) {
        inFlight.computeIfPresent(job.id(), (id, execution) -> execution.job == job ? null : execution);
    }

    List<String> ids() {
        return List.copyOf(inFlight.keySet());
    }

    int size() {
        return inFlight.size();
    }

    /** Interrupts the handlers still running (shutdown). */
    void interruptAll() {
        inFlight.values().forEach(Execution::interruptHandler);
    }

    /** Something may have reached Redis without this instance knowing. */
    void markUnknown() {
        unknown = true;
    }

    /** Whether {@link #markUnknown()} was called since the last time this said so. */
    boolean takeUnknown() {
        if (!unknown) {
            return false;
        }
        unknown = false;
        return true;
    }

    /** Waits until no job is held here; returns false if some still are after {@code timeout}. */
    boolean awaitEmpty(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!inFlight.isEmpty()) {
            if (System.nanoTime() - deadline >= 0) {
                return false;
            }
            try {
                Thread.sleep(10);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                return inFlight.isEmpty();
            }
        }
        return true;
    }
}
