package dev.delayjobs.bridge;

/**
 * A queue in compatibility mode: its jobs come from (and its publishes go to) the Redisson
 * {@code RDelayedQueue} over the list {@code target}.
 *
 * @param queue the queue's name
 * @param target the name of the {@code RDelayedQueue}'s target list
 * @param format the codec of its elements
 */
public record BridgedQueue(String queue, String target, ElementFormat format) {
}
