package dev.delayjobs.schedule;

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
     * Replaces the spec and payload of schedule {@code name}; a changed spec replaces its pending
     * tick (a paused schedule stays paused). Returns false when there is no such schedule.
     */
    boolean update(String queue, String name, ScheduleSpec when, Object payload);

    /** Stops the schedule's ticks (a tick published already still runs); returns whether it was ticking. */
    boolean pause(String queue, String name);

    /** Ticks a paused schedule again from the first tick after now; returns whether it was paused. */
    boolean resume(String queue, String name);

    /** Deletes the schedule (its published ticks stay jobs); returns whether it existed. */
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
     * @param spec        when it ticks; null when stored by a release that this one cannot read
     * @param nextTick    the next tick not yet published (epoch ms); null while paused
     */
    record ScheduleInfo(String queue, String name, @Nullable ScheduleSpec spec, String payloadJson,
            java.time.@Nullable Instant nextTick, boolean paused) {
    }
}
