package dev.delayjobs.bridge;

/**
 * A queue in compatibility mode: its jobs come from the Redisson {@code RDelayedQueue} over the list
 * {@code target}, and its publishes go there too unless the migration has reached its last step.
 *
 * @param queue the queue's name
 * @param target the name of the {@code RDelayedQueue}'s target list
 * @param format the codec of its elements
 * @param offersPublishes whether publishes are offered to the {@code RDelayedQueue} (else they are native jobs)
 */
public record BridgedQueue(String queue, String target, ElementFormat format, boolean offersPublishes) {
}
