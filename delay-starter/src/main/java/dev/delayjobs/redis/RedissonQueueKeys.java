package dev.delayjobs.redis;

/**
 * The keys of a Redisson {@code RDelayedQueue} over the list {@code target}, named as Redisson names
 * them: every one carries the hash tag of the list (its own one when the name has braces).
 */
record RedissonQueueKeys(String target) {

    /** Packed elements by due time (score: epoch ms of the publisher's clock). */
    String timeouts() {
        return tagged("redisson_delay_queue_timeout");
    }

    /** The same packed elements, in offer order. */
    String pending() {
        return tagged("redisson_delay_queue");
    }

    private String tagged(String prefix) {
        return target.contains("{") ? prefix + ":" + target : prefix + ":{" + target + "}";
    }
}
