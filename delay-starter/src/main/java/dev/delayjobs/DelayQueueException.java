package dev.delayjobs;

/**
 * An operation on a delay queue failed because Redis could not complete it: Redis could not be
 * reached, did not answer in time or refused the call. The message names what was asked and of
 * which queue ({@code Redis could not publish to queue 'order-timeout': ...}); the cause, when
 * there is one, is the Redis client's exception. Unchecked, like the
 * {@link IllegalArgumentException} thrown for bad input.
 */
public class DelayQueueException extends RuntimeException {

    /**
     * An exception with what failed and why.
     *
     * @param message what was asked of which queue, and why it failed
     * @param cause the failure reported by the Redis client
     */
    public DelayQueueException(String message, Throwable cause) {
        super(message, cause);
    }

    /**
     * An exception with what failed, when no underlying exception says why.
     *
     * @param message what was asked of which queue, and why it failed
     */
    public DelayQueueException(String message) {
        super(message);
    }
}
