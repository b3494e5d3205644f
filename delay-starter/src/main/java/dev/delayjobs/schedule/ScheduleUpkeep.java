package dev.delayjobs.schedule;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.delayjobs.queue.Partition;
import dev.delayjobs.queue.QueueName;
import dev.delayjobs.redis.ScheduleStore;
import dev.delayjobs.redis.ScheduleStore.DueSchedule;

/**
 * The schedule timer's slower round (every {@link #PERIOD}, per queue): keeps the declaration time
 * of this application's {@code @Recurring} schedules fresh and warns, once per schedule, of a
 * declared one that no running application declared for {@link #UNDECLARED_AFTER}; parks a
 * schedule whose spec this release cannot read, and looks at parked ones again, putting back those
 * it can read (see docs/schedules.md).
 */
final class ScheduleUpkeep {

    private static final Log log = LogFactory.getLog(ScheduleTimer.class);

    static final Duration PERIOD = Duration.ofMinutes(1);
    /** A declared schedule whose declaration is older than this is reported as undeclared. */
    static final Duration UNDECLARED_AFTER = Duration.ofMinutes(10);
    /** Most undeclared schedules read, and parked ones looked at, per queue and round. */
    static final int MOST_PER_ROUND = 100;

    private final ScheduleStore store;
    private final Function<QueueName, Partition> home;
    private final Set<String> warned = ConcurrentHashMap.newKeySet();

    /** @param home the partition that holds a queue's schedules */
    ScheduleUpkeep(ScheduleStore store, Function<QueueName, Partition> home) {
        this.store = store;
        this.home = home;
    }

    /**
     * One round for {@code queue}: {@code declared} are the names of its schedules this application
     * declares. Returns the names reported undeclared.
     */
    Set<String> round(QueueName queue, List<String> declared) {
        Partition whole = home.apply(queue);
        ScheduleStore.Undeclared old = store.refreshDeclared(whole, declared, UNDECLARED_AFTER, MOST_PER_ROUND);
        for (Map.Entry<String, Long> e : old.schedules().entrySet()) {
            if (warned.add(queue + "\n" + e.getKey())) {
                log.warn("Schedule '" + e.getKey() + "' of queue '" + queue + "' was declared (@Recurring) by no running "
                        + "application since " + Instant.ofEpochMilli(e.getValue()) + "; it still ticks. Remove it with "
                        + "DelaySchedules.remove or POST /actuator/delayqueues/" + queue + "/remove-schedule {\"id\": \""
                        + e.getKey() + "\"} if it is gone for good");
            }
        }
        lookAtParked(queue);
        return old.schedules().keySet();
    }

    /** Takes a schedule whose spec cannot be read out of the ticks; returns whether this call did. */
    boolean park(QueueName queue, DueSchedule s, String why) {
        boolean parked = store.park(home.apply(queue), s.name(), s.spec(), s.tick());
        if (parked) {
            log.warn("Schedule '" + s.name() + "' of queue '" + queue + "' is not ticked, and parked until an instance "
                    + "reads its spec (written by a newer release, or by hand?): " + why);
        }
        return parked;
    }

    private void lookAtParked(QueueName queue) {
        Partition whole = home.apply(queue);
        for (DueSchedule s : store.parked(whole, PERIOD, MOST_PER_ROUND).schedules()) {
            ScheduleSpec spec;
            try {
                spec = ScheduleSpec.parse(s.spec());
            }
            catch (IllegalArgumentException ex) {
                store.lookAgainLater(whole, s.name(), s.spec());
                continue;
            }
            Instant next = spec.next(Instant.now());
            if (next != null && store.unpark(whole, s.name(), s.spec(), next.toEpochMilli())) {
                log.info("Schedule '" + s.name() + "' of queue '" + queue + "' ticks again from " + next + ": its spec "
                        + spec + " is read");
            }
        }
    }
}
