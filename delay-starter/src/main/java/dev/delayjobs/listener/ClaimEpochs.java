package dev.delayjobs.listener;

/**
 * The claim epochs of one {@link Claimer}. Claims carry the current epoch; each hand-back names a
 * new one, above every epoch used so far and every fence seen, and raises the instance's claim
 * fence to it, so that the claims sent before take nothing if they reach Redis late. The epoch is
 * chosen here rather than by the script, so that a resent copy of a hand-back raises the fence no
 * further than the first. Thread-safe: the claimer thread uses it, and the stop reads it.
 */
final class ClaimEpochs {

    /** The epoch claims carry: 0 before the first hand-back. */
    private long current;
    /** The highest epoch named by a hand-back, or seen in a fence. */
    private long highest;
    private boolean stopped;

    synchronized long current() {
        return current;
    }

    /** Redis holds {@code fence} for this instance: the next epoch goes above it. */
    synchronized void fenceSeen(long fence) {
        highest = Math.max(highest, fence);
    }

    /** An epoch for the next hand-back, above every one used or seen. */
    synchronized long next() {
        if (stopped) {
            throw new IllegalStateException("the claimer was stopped: its claim fence is set");
        }
        return ++highest;
    }

    /** The hand-back that named {@code epoch} ran: claims carry it from now on. */
    synchronized void claimWith(long epoch) {
        current = epoch;
    }

    /**
     * The fence to set at shutdown: above every epoch used, so that a claim still on its way takes
     * nothing. No epoch is handed out after this.
     */
    synchronized long stop() {
        stopped = true;
        return highest + 1;
    }
}
