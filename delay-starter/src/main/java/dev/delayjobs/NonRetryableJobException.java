package dev.delayjobs;

/**
 * Thrown by a {@link DelayedHandler} method to send the job to the dead set at once, without
 * further attempts: for jobs that no retry can fix.
 *
 * <p>The job's last error, shown by {@link DelayPublisher#find} and the {@code delayqueues}
 * endpoint, is this exception's class name and message. It counts when it is what the method
 * throws (a subclass too); wrapped as the cause of another exception it is an ordinary failure,
 * retried until the job's attempts run out, unless its class is listed in
 * {@code delay.consumer.not-retryable-exceptions}. It sends the job to the dead set whatever the
 * {@link JobFailurePolicy} says.
 */
public class NonRetryableJobException extends RuntimeException {

    /**
     * An exception that sends the job to the dead set.
     *
     * @param message why the job cannot succeed; stored as the job's last error
     */
    public NonRetryableJobException(String message) {
        super(message);
    }

    /**
     * An exception that sends the job to the dead set, with the failure behind it.
     *
     * @param message why the job cannot succeed; stored as the job's last error
     * @param cause the failure that made the job hopeless, for the application's own logging
     */
    public NonRetryableJobException(String message, Throwable cause) {
        super(message, cause);
    }
}
