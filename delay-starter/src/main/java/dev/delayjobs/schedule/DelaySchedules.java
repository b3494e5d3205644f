package dev.delayjobs.schedule;

import java.time.Instant;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * Schedules created at run time, each with a payload: every tick is a job of its queue, with the
 * guarantees of a declared schedule (see docs/schedules.md). The queue's handler receives the
 * payload; the job's id is {@code <name>@<tick epoch ms>} and its due time the tick. Every instance
 * that consumes the queue, or used this bean for it, ticks its schedules.
 */
public interface DelaySchedules {

    /**
     * Creates schedule {@code name} of {@code queue}, its first tick the first of {@code when} after
     * now. Returns false, changing nothing, when the queue has a schedule by that name.
     *
     * @throws IllegalArgumentException for a bad queue or schedule name or a payload that cannot be written
     */
    boolean create(String queue, String name, ScheduleSpec when, Object payload);

    /**
     * Replaces the spec and payload of schedule {@code name}; a changed spec or payload replaces its
     * pending tick, and a job of a tick published ahead whose instant is still to come is deleted (a
     * paused schedule stays paused). Returns false when there is no such schedule.
     */
    boolean update(String queue, String name, ScheduleSpec when, Object payload);

    /**
     * Stops the schedule's ticks (the job of a tick whose instant has come still runs; one published
     * ahead of its instant is deleted); returns whether it was ticking.
     */
    boolean pause(String queue, String name);

    /** Ticks a paused schedule again from the first tick after now; returns whether it was paused. */
    boolean resume(String queue, String name);

    /**
     * Deletes the schedule (the jobs of its ticks whose instant has come stay; those published ahead
     * of their instant are deleted), declared ({@code @Recurring}) or not;
     * returns whether it existed. A declared one comes back when an instance that declares it starts.
     */
    boolean remove(String queue, String name);

    /**
     * A page of the queue's schedules: start with cursor {@code "0"}, pass the page's cursor for the
     * next, until it is {@code "0"} again. About {@code count} (1 to 1000) per page, in no order.
     */
    Page list(String queue, String cursor, int count);

    /** A page of schedules, and the cursor of the next ({@code "0"} after the last). */
    record Page(String cursor, List<ScheduleInfo> schedules) {
    }

    /**
     * One schedule as stored.
     *
     * @param spec         when it ticks; null when stored by a release that this one cannot read (such a
     *                     schedule is parked: not ticked, not paused, until an instance reads it)
     * @param nextTick     the next tick not yet published; null while paused or parked
     * @param lastOutcome  how the job of its last tick to end ended; null before any
     * @param lastDeclared when a running application last declared it ({@code @Recurring}); null for
     *                     a schedule created at run time
     * @param undeclared   declared, but by no running application for 10 minutes: it still ticks, until
     *                     {@link #remove removed}
     */
    record ScheduleInfo(String queue, String name, @Nullable ScheduleSpec spec, String payloadJson,
            @Nullable Instant nextTick, boolean paused, @Nullable LastOutcome lastOutcome,
            @Nullable Instant lastDeclared, boolean undeclared) {
    }

    /**
     * How the job of a schedule's tick ended, as recorded by the script that ended it.
     *
     * @param outcome {@code handled}, {@code retrying} (failed, a retry due), {@code dead}, or
     *                {@code skipped} (not run: {@link Overlap#SKIP} and the previous tick's job had not ended)
     * @param at      when (Redis clock)
     * @param tick    the tick whose job it was
     */
    record LastOutcome(String outcome, Instant at, Instant tick) {
    }
}
