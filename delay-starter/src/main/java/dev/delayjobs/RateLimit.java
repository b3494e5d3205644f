package dev.delayjobs;

import java.time.Duration;
import java.util.Objects;

import org.springframework.boot.convert.DurationStyle;

/**
 * At most {@code permits} jobs of a queue start in any window of {@code window}, counted across
 * every instance that consumes the queue. Written {@code permits/window}: {@code 100/1s},
 * {@code 5/500ms}, {@code 6000/1m}.
 *
 * @param permits jobs that may start in one window, 1 to {@value #MAX_PERMITS}
 * @param window the sliding window, 10 ms to 1 hour
 */
public record RateLimit(int permits, Duration window) {

    /** Most permits per window: the limit keeps one entry per job started in the window. */
    public static final int MAX_PERMITS = 100_000;

    private static final Duration SHORTEST = Duration.ofMillis(10);
    private static final Duration LONGEST = Duration.ofHours(1);

    /**
     * A limit of {@code permits} jobs started per {@code window}.
     *
     * @param permits jobs that may start in one window, 1 to {@value #MAX_PERMITS}
     * @param window the sliding window, 10 ms to 1 hour, in whole milliseconds
     * @throws NullPointerException when {@code window} is null
     * @throws IllegalArgumentException when {@code permits} or {@code window} is out of range,
     *     or {@code window} is not a whole number of milliseconds, saying which
     */
    public RateLimit {
        Objects.requireNonNull(window, "window");
        if (permits < 1 || permits > MAX_PERMITS) {
            throw new IllegalArgumentException("rate limit permits must be between 1 and " + MAX_PERMITS + ", was " + permits);
        }
        if (window.compareTo(SHORTEST) < 0 || window.compareTo(LONGEST) > 0) {
            throw new IllegalArgumentException("rate limit window must be between 10ms and 1h, was " + text(window));
        }
        if (window.toNanos() % 1_000_000 != 0) {
            throw new IllegalArgumentException("rate limit window must be whole milliseconds, was " + text(window));
        }
    }

    /**
     * Reads {@code permits/window}, the window in Spring Boot's duration format ({@code 1s},
     * {@code 500ms}, {@code 1m}, {@code PT1S}).
     *
     * @param text {@code permits/window}, such as {@code 100/1s}; spaces around either part are
     *     ignored
     * @return the limit
     * @throws IllegalArgumentException naming what is wrong with {@code text}
     */
    public static RateLimit parse(String text) {
        String what = "rate limit '" + text + "' must be <permits>/<window>, for example 100/1s";
        if (text == null) {
            throw new IllegalArgumentException(what);
        }
        int slash = text.indexOf('/');
        if (slash < 1 || slash == text.length() - 1) {
            throw new IllegalArgumentException(what);
        }
        int permits;
        Duration window;
        try {
            permits = Integer.parseInt(text.substring(0, slash).trim());
            window = DurationStyle.detectAndParse(text.substring(slash + 1).trim());
        }
        catch (IllegalArgumentException ex) {
            throw new IllegalArgumentException(what, ex);
        }
        return new RateLimit(permits, window);
    }

    /**
     * The rate in jobs per second.
     *
     * @return {@code permits} divided by the window in seconds: {@code 5/500ms} is 10.0
     */
    public double perSecond() {
        return permits * 1000.0 / window.toMillis();
    }

    @Override
    public String toString() {
        return permits + "/" + text(window);
    }

    /**
     * {@code duration} as written in properties: in the largest unit that holds it exactly
     * ({@code 500ms}, {@code 1s}, {@code 2h}). The API package depends on nothing of the starter's
     * internals, so it does not borrow their formatter.
     */
    private static String text(Duration duration) {
        if (duration.abs().compareTo(Duration.ofDays(36_500)) > 0) {
            return duration.toDays() + "d"; // too long for nanoseconds in a long
        }
        long nanos = duration.toNanos();
        long[] unitNanos = { 86_400_000_000_000L, 3_600_000_000_000L, 60_000_000_000L, 1_000_000_000L, 1_000_000L, 1_000L };
        String[] units = { "d", "h", "m", "s", "ms", "us" };
        if (nanos == 0) {
            return "0ms";
        }
        for (int i = 0; i < units.length; i++) {
            if (nanos % unitNanos[i] == 0) {
                return nanos / unitNanos[i] + units[i];
            }
        }
        return nanos + "ns";
    }
}
