package dev.delayjobs.store;

/**
 * The result of recovering the jobs of stopped consumer instances.
 *
 * @param requeued jobs sent back to ready
 * @param buried jobs that had used all their attempts and went to the dead set
 * @param instances instances removed
 * @param fence when one instance was released, its claim fence now: claims of a lower epoch take nothing
 */
public record Recovery(long requeued, long buried, long instances, long fence) {
}
