package dev.delayjobs;

/** An operation on a delay queue failed because Redis could not complete it. */
public class DelayQueueException extends RuntimeException {

    public DelayQueueException(String message, Throwable cause) {
        super(message, cause);
    }

    public DelayQueueException(String message) {
        super(message);
    }
}
