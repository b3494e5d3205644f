package dev.delayjobs.actuate;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * A dead job; {@code payloadVersion} is the payload version it was published at (1 without a
 * version header), null when the page did not read its record (past the page's byte budget).
 */
public record DeadJobView(String id, int attempts, @Nullable String lastError, Instant diedAt,
        @Nullable Integer payloadVersion) {
}
