package dev.delayjobs.listener;

import java.util.function.BooleanSupplier;

/**
 * Records a job's outcome (ack, retry, bury) while Redis is unreachable: a lost outcome would leave
 * the job held by a live instance. Retries after 50 ms, doubling up to 2 s, for a minute, or 5 s
 * once the container is stopping. An interrupt does not cut it short: the handler is done, only its
 * outcome is left to store; the interrupt flag is restored afterwards.
 */
final class OutcomeRetry {

    private OutcomeRetry() {
    }

    /** Runs {@code outcome} until it succeeds; returns the last failure if it gave up, else null. */
    static RuntimeException run(Runnable outcome, BooleanSupplier stopping) {
        boolean interrupted = false;
        long waitMs = 50;
        long started = System.nanoTime();
        try {
            while (true) {
                try {
                    outcome.run();
                    return null;
                }
                catch (RuntimeException ex) {
                    interrupted |= Thread.interrupted();
                    long limitSeconds = stopping.getAsBoolean() ? 5 : 60;
                    if (System.nanoTime() - started > limitSeconds * 1_000_000_000L) {
                        return ex;
                    }
                    try {
                        Thread.sleep(waitMs);
                    }
                    catch (InterruptedException again) {
                        interrupted = true;
                    }
                    waitMs = Math.min(waitMs * 2, 2000);
                }
            }
        }
        finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
