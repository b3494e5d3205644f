package dev.delayjobs.redis;

/**
 * The result of one transfer step.
 *
 * @param moved how many due jobs moved to ready
 * @param nextDueAt due time of the earliest job still delayed, epoch ms, or -1 when none is
 * @param serverNow the Redis server clock when the step ran, epoch ms
 */
public record Transfer(int moved, long nextDueAt, long serverNow) {

    /** Whether the step stopped at its batch limit with more jobs due. */
    public boolean moreDue() {
        return nextDueAt >= 0 && nextDueAt <= serverNow;
    }
}
