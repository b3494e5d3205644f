package dev.delayjobs.schedule;

import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.util.Objects;

import org.jspecify.annotations.Nullable;
import org.springframework.scheduling.support.CronExpression;

/**
 * When a schedule ticks: a cron expression in a zone, or a fixed rate; and its misfire and overlap policies.
 * Stored as text ({@link #text()}), which instances compare to tell a changed schedule.
 */
public final class ScheduleSpec {

    static final Duration SHORTEST_RATE = Duration.ofMillis(100);

    private final @Nullable CronExpression cron;
    private final @Nullable ZoneId zone;
    private final @Nullable Duration rate;
    private final Misfire misfire;
    private final Overlap overlap;
    private final String text;

    private ScheduleSpec(@Nullable CronExpression cron, @Nullable ZoneId zone, @Nullable Duration rate, Misfire misfire,
            Overlap overlap) {
        this.cron = cron;
        this.zone = zone;
        this.rate = rate;
        this.misfire = misfire;
        this.overlap = overlap;
        // RUN, the default, is not written: a spec stored before overlap existed reads the same
        this.text = (cron != null ? "c:" + cron + "@" + zone : "r:" + rate.toMillis()) + ";m:" + misfire
                + (overlap == Overlap.RUN ? "" : ";o:" + overlap);
    }

    /** A cron schedule (six fields, with seconds) read in {@code zone}. */
    public static ScheduleSpec cron(String expression, ZoneId zone, Misfire misfire) {
        CronExpression cron;
        try {
            cron = CronExpression.parse(expression);
        }
        catch (IllegalArgumentException ex) {
            throw new IllegalArgumentException("cron '" + expression + "' is not a cron expression: " + ex.getMessage(), ex);
        }
        return new ScheduleSpec(cron, Objects.requireNonNull(zone, "zone"), null, Objects.requireNonNull(misfire, "misfire"),
                Overlap.RUN);
    }

    /** A schedule ticking every {@code rate} (at least 100 ms). */
    public static ScheduleSpec fixedRate(Duration rate, Misfire misfire) {
        if (rate == null || rate.compareTo(SHORTEST_RATE) < 0) {
            throw new IllegalArgumentException("fixedRate must be at least " + SHORTEST_RATE.toMillis() + " ms, was " + rate);
        }
        return new ScheduleSpec(null, null, rate.truncatedTo(ChronoUnit.MILLIS), Objects.requireNonNull(misfire, "misfire"),
                Overlap.RUN);
    }

    /** This spec with {@code overlap}: what a tick does while the previous tick's job has not ended. */
    public ScheduleSpec withOverlap(Overlap overlap) {
        return new ScheduleSpec(cron, zone, rate, misfire, Objects.requireNonNull(overlap, "overlap"));
    }

    /** Reads a stored spec; throws {@link IllegalArgumentException} for text this release cannot read. */
    static ScheduleSpec parse(String text) {
        int m = text.lastIndexOf(";m:");
        if (m < 0) {
            throw new IllegalArgumentException("not a schedule spec: " + text);
        }
        try {
            String policies = text.substring(m + 3);
            int o = policies.indexOf(";o:");
            Misfire misfire = Misfire.valueOf(o < 0 ? policies : policies.substring(0, o));
            Overlap overlap = o < 0 ? Overlap.RUN : Overlap.valueOf(policies.substring(o + 3));
            String when = text.substring(0, m);
            if (when.startsWith("r:")) {
                return fixedRate(Duration.ofMillis(Long.parseLong(when.substring(2))), misfire).withOverlap(overlap);
            }
            int at = when.lastIndexOf('@');
            if (when.startsWith("c:") && at > 2) {
                return cron(when.substring(2, at), ZoneId.of(when.substring(at + 1)), misfire).withOverlap(overlap);
            }
        }
        catch (IllegalArgumentException | DateTimeException ex) {
            throw new IllegalArgumentException("not a schedule spec: " + text + " (" + ex.getMessage() + ")", ex);
        }
        throw new IllegalArgumentException("not a schedule spec: " + text);
    }

    /** The first tick strictly after {@code after}, or null when the cron expression has none. */
    public @Nullable Instant next(Instant after) {
        if (cron == null) {
            return after.plus(rate);
        }
        ZonedDateTime next = cron.next(ZonedDateTime.ofInstant(after, zone));
        return next == null ? null : next.toInstant();
    }

    /**
     * The first tick strictly after {@code now} of the series through {@code tick}: a fixed rate
     * keeps its phase (arithmetic, whatever the gap); a cron schedule starts again from now.
     */
    @Nullable Instant nextAfter(Instant tick, Instant now) {
        if (cron != null) {
            return next(now);
        }
        long period = rate.toMillis();
        long behind = now.toEpochMilli() - tick.toEpochMilli();
        long steps = behind < 0 ? 1 : behind / period + 1;
        return tick.plusMillis(steps * period);
    }

    public Misfire misfire() {
        return misfire;
    }

    public Overlap overlap() {
        return overlap;
    }

    /** The stored form, compared by instances to tell a changed schedule. */
    public String text() {
        return text;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof ScheduleSpec s && s.text.equals(text);
    }

    @Override
    public int hashCode() {
        return text.hashCode();
    }

    @Override
    public String toString() {
        return text;
    }
}
