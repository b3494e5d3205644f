package dev.delayjobs.redis;

import java.util.ArrayList;
import java.util.List;

import dev.delayjobs.redis.ScheduleStore.Due;
import dev.delayjobs.redis.ScheduleStore.DueSchedule;
import dev.delayjobs.redis.ScheduleStore.Listed;
import dev.delayjobs.redis.ScheduleStore.Page;
import dev.delayjobs.redis.ScheduleStore.Stepped;
import dev.delayjobs.redis.ScheduleStore.StoredSchedule;
import dev.delayjobs.redis.ScheduleStore.TickOutcome;

/**
 * Reads the replies of the schedule scripts into {@link ScheduleStore}'s types. A schedule's value
 * is stored as {@code spec \n payload} (schedule-declare.lua); a score comes back as a decimal string.
 */
final class ScheduleReplies {

    private ScheduleReplies() {
    }

    /** The schedule stored as {@code value} ({@code spec \n payload}), with its next tick (null: none). */
    static StoredSchedule stored(String name, String value, Long nextTick) {
        int newline = value.indexOf('\n');
        return new StoredSchedule(name, value.substring(0, newline), value.substring(newline + 1), nextTick);
    }

    /** schedules-due.lua: now, ticking, soon, then name, tick, value per schedule. */
    static Due due(List<Object> r) {
        List<DueSchedule> schedules = new ArrayList<>();
        for (int i = 3; i + 2 < r.size(); i += 3) {
            StoredSchedule s = stored(r.get(i).toString(), r.get(i + 2).toString(), null);
            schedules.add(new DueSchedule(s.name(), score(r.get(i + 1)), s.spec(), s.payload()));
        }
        return new Due(Long.parseLong(r.get(0).toString()), Long.parseLong(r.get(1).toString()),
                Long.parseLong(r.get(2).toString()), schedules);
    }

    /** tick.lua: one status per step. */
    static List<Stepped> stepped(List<Object> r) {
        List<Stepped> out = new ArrayList<>(r.size());
        for (Object o : r) {
            out.add(switch (Integer.parseInt(o.toString())) {
                case 1 -> Stepped.PUBLISHED;
                case 2 -> Stepped.SKIPPED;
                case 3 -> Stepped.OVERLAPPED;
                default -> Stepped.MOVED_ON;
            });
        }
        return out;
    }

    /**
     * schedules-page.lua: the next cursor, now, then name, value, tick, outcome, declared, parked
     * per schedule ({@code ''} where a schedule has none).
     */
    static Page page(List<Object> r) {
        List<Listed> schedules = new ArrayList<>();
        for (int i = 2; i + 5 < r.size(); i += 6) {
            String tick = r.get(i + 2).toString();
            String outcome = r.get(i + 3).toString();
            String declared = r.get(i + 4).toString();
            schedules.add(new Listed(stored(r.get(i).toString(), r.get(i + 1).toString(), tick.isEmpty() ? null : score(tick)),
                    outcome.isEmpty() ? null : TickOutcome.parse(outcome), declared.isEmpty() ? null : score(declared),
                    "1".equals(r.get(i + 5).toString())));
        }
        return new Page(r.get(0).toString(), Long.parseLong(r.get(1).toString()), schedules);
    }

    private static long score(Object score) {
        return (long) Double.parseDouble(score.toString());
    }
}
