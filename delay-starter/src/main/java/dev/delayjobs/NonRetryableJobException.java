package dev.delayjobs;

/**
 * Thrown by a {@link DelayedHandler} method to send the job to the dead set at once, without
 * further attempts: for jobs that no retry can fix.
 */
public class NonRetryableJobException extends RuntimeException {

    public NonRetryableJobException(String message) {
        super(message);
    }

    public NonRetryableJobException(String message, Throwable cause) {
        super(message, cause);
    }
}
