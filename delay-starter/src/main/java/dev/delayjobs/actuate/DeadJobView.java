package dev.delayjobs.actuate;

import java.time.Instant;

/** A dead job. */
public record DeadJobView(String id, int attempts, String lastError, Instant diedAt) {
}
