package dev.delayjobs.test;

import java.time.Duration;

import dev.delayjobs.RateLimit;
import dev.delayjobs.store.ClaimRequest;

/** Short forms of the claims tests make most: every job taken starts, from an unpartitioned queue. */
public final class ClaimRequests {

    private ClaimRequests() {
    }

    /** {@code max} jobs for {@code instance}, all started, no configured rate limit. */
    public static ClaimRequest request(String instance, int max, Duration lease, long epoch) {
        return request(instance, max, lease, epoch, null);
    }

    /** {@code max} jobs for {@code instance}, all started, under {@code configuredLimit}. */
    public static ClaimRequest request(String instance, int max, Duration lease, long epoch, RateLimit configuredLimit) {
        return new ClaimRequest(instance, max, max, lease, epoch, configuredLimit, 0, 1);
    }
}
