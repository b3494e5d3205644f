package dev.delayjobs.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.redisson.api.RScript;
import org.redisson.api.RScript.Mode;
import org.redisson.api.RScript.ReturnType;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

import dev.delayjobs.queue.Partition;

/**
 * The schedules of the queues in Redis (see docs/schedules.md): the only class that knows their
 * keys. Java computes the ticks; every write here is one script, the tick a compare-and-set.
 */
public final class ScheduleStore {

    private static final LuaScript DECLARE = LuaScript.load(Script.SCHEDULE_DECLARE);
    private static final LuaScript DUE = LuaScript.load(Script.SCHEDULES_DUE);
    private static final LuaScript TICK = LuaScript.load(Script.TICK);
    private static final LuaScript REMOVE = LuaScript.load(Script.SCHEDULE_REMOVE);
    private static final LuaScript SET_TICK = LuaScript.load(Script.SCHEDULE_SET_TICK);
    private static final LuaScript PAGE = LuaScript.load(Script.SCHEDULES_PAGE);
    private static final LuaScript PARK = LuaScript.load(Script.SCHEDULE_PARK);
    private static final LuaScript DECLARED = LuaScript.load(Script.SCHEDULES_DECLARED);

    private final RedissonClient redisson;
    private final RScript script;
    private final String prefix;

    public ScheduleStore(RedissonClient redisson, String prefix) {
        this.redisson = redisson;
        this.script = redisson.getScript(StringCodec.INSTANCE);
        this.prefix = prefix;
    }

    /** What a declaration did. */
    public enum Declared { UNCHANGED, CREATED, REPLACED, EXISTS, ABSENT }

    /** Whether a declaration may create a schedule, replace one, or both. */
    public enum DeclareMode { PUT, CREATE, UPDATE }

    /** A stored schedule: its spec, payload and next tick (epoch ms; null while paused or parked). */
    public record StoredSchedule(String name, String spec, String payload, Long nextTick) {
    }

    /**
     * A schedule as listed: {@code outcome} is how its last tick's job ended (null before any),
     * {@code declaredAt} when a running application last declared it (epoch ms; null for one created
     * at run time), {@code parked} whether it is out of the ticks because an instance could not read its spec.
     */
    public record Listed(StoredSchedule schedule, TickOutcome outcome, Long declaredAt, boolean parked) {
    }

    /** How a tick's job ended: {@code handled}, {@code retrying}, {@code dead} or {@code skipped}, when, and its tick. */
    public record TickOutcome(String outcome, long at, long tick) {

        static TickOutcome parse(String text) {
            String[] parts = text.split(",");
            return parts.length == 3 ? new TickOutcome(parts[0], Long.parseLong(parts[1]), Long.parseLong(parts[2])) : null;
        }
    }

    /** A page of schedules, the Redis clock's now (epoch ms) and the cursor of the next ({@code "0"} after the last). */
    public record Page(String cursor, long now, List<Listed> schedules) {
    }

    /** Declared schedules that no running application declared for a while: name and when last declared (epoch ms). */
    public record Undeclared(long now, Map<String, Long> schedules) {
    }

    /** A stored schedule whose next tick is due: its name, that tick (epoch ms) and its spec and payload. */
    public record DueSchedule(String name, long tick, String spec, String payload) {
    }

    /**
     * The due schedules read in one call, with the Redis clock's now (epoch ms) and how many
     * schedules of the set read have a tick at all ({@code ticking}: none means the queue has no
     * schedule to tick, due or not) and a tick within the read's {@code soonMs} ({@code soon}).
     */
    public record Due(long now, long ticking, long soon, List<DueSchedule> schedules) {
    }

    /**
     * One schedule's step: publish the job of {@code tick} due at {@code fireAt} (unless
     * {@code fire} is false: a misfire skipped) and store {@code next} (null: none), if the schedule
     * still has {@code tick} and {@code spec}.
     */
    public record Step(String name, String spec, long tick, boolean fire, long fireAt, Long next, boolean skipWhileRunning) {

        public Step(String name, String spec, long tick, boolean fire, long fireAt, Long next) {
            this(name, spec, tick, fire, fireAt, next, false);
        }
    }

    /** What a step did: {@code SKIPPED} a misfire, {@code OVERLAPPED} skipped as the last tick's job had not ended. */
    public enum Stepped { MOVED_ON, PUBLISHED, SKIPPED, OVERLAPPED }

    /**
     * Stores schedule {@code name} with {@code spec} and {@code payload}, its first tick at
     * {@code firstTick}; the same spec and payload stored already change nothing; another replaces
     * the pending tick. A new schedule with {@code paused} gets no tick until resumed.
     */
    public Declared declare(Partition queue, String name, String spec, String payload, long firstTick, boolean paused) {
        return declare(queue, name, spec, payload, firstTick, paused, DeclareMode.PUT, false);
    }

    /**
     * Like {@link #declare(Partition, String, String, String, long, boolean)}, creating or updating
     * only; {@code declared}: an application's declaration ({@code @Recurring}), whose time is kept
     * (see {@link #refreshDeclared}).
     */
    public Declared declare(Partition queue, String name, String spec, String payload, long firstTick, boolean paused,
            DeclareMode mode, boolean declared) {
        QueueKeys k = keys(queue);
        Long r = RedisCalls.call("declare a schedule of", queue.name(), () -> DECLARE.run(script, Mode.READ_WRITE,
                ReturnType.LONG, k.of(k.schedules(), k.scheduleTicks(), k.scheduleDeclared(), k.schedulesParked(),
                        k.scheduleAhead(), k.scheduleAheadDue(), k.jobs(), k.delayed()), name,
                spec + "\n" + payload, Long.toString(firstTick), paused ? "1" : "0",
                mode.name().toLowerCase(Locale.ROOT), declared ? "1" : "0"));
        return Declared.values()[r.intValue()];
    }

    /**
     * Stores now as the declaration time of {@code names} (those still stored as declared) and
     * returns up to {@code max} declared schedules whose time is older than {@code before}.
     */
    public Undeclared refreshDeclared(Partition queue, List<String> names, Duration before, int max) {
        QueueKeys k = keys(queue);
        List<Object> args = new ArrayList<>();
        args.add(Long.toString(before.toMillis()));
        args.add(Integer.toString(max));
        args.addAll(names);
        List<Object> r = RedisCalls.call("refresh the declared schedules of", queue.name(), () -> DECLARED.run(script,
                Mode.READ_WRITE, ReturnType.LIST, k.of(k.scheduleDeclared()), args.toArray()));
        Map<String, Long> old = new LinkedHashMap<>();
        for (int i = 1; i + 1 < r.size(); i += 2) {
            old.put(r.get(i).toString(), (long) Double.parseDouble(r.get(i + 1).toString()));
        }
        return new Undeclared(Long.parseLong(r.get(0).toString()), old);
    }

    /**
     * Takes a schedule whose spec this release cannot read out of the ticks (if it still has
     * {@code spec} and {@code tick}); returns whether it did.
     */
    public boolean park(Partition queue, String name, String spec, long tick) {
        return parkAction(queue, "park", name, spec, tick);
    }

    /** Up to {@code max} parked schedules last looked at more than {@code after} ago, their tick that time. */
    public Due parked(Partition queue, Duration after, int max) {
        QueueKeys k = keys(queue);
        // schedules-due on the parked set: its scores are the times each was last looked at
        List<Object> r = RedisCalls.call("read the parked schedules of", queue.name(), () -> DUE.run(script, Mode.READ_WRITE,
                ReturnType.LIST, k.of(k.schedules(), k.schedulesParked(), k.scheduleAhead(), k.scheduleAheadDue()),
                Long.toString(-after.toMillis()),
                Integer.toString(max), "0", "0"));
        return ScheduleReplies.due(r);
    }

    /** A parked schedule that still has {@code spec} is looked at again later. */
    public boolean lookAgainLater(Partition queue, String name, String spec) {
        return parkAction(queue, "look", name, spec, 0);
    }

    /** A parked schedule that still has {@code spec} ticks again from {@code tick}. */
    public boolean unpark(Partition queue, String name, String spec, long tick) {
        return parkAction(queue, "unpark", name, spec, tick);
    }

    private boolean parkAction(Partition queue, String action, String name, String spec, long tick) {
        QueueKeys k = keys(queue);
        Long r = RedisCalls.call(action + " a schedule of", queue.name(), () -> PARK.run(script, Mode.READ_WRITE,
                ReturnType.LONG, k.of(k.schedules(), k.scheduleTicks(), k.schedulesParked()), action, name, spec,
                Long.toString(tick)));
        return r == 1;
    }

    /** Up to {@code max} schedules (1 to 1000) whose next tick is at most {@code lookaheadMs} after now. */
    public Due due(Partition queue, long lookaheadMs, int max) {
        return due(queue, lookaheadMs, max, lookaheadMs, 0);
    }

    /**
     * Up to {@code max} schedules (1 to 1000) whose next tick is at most {@code lookaheadMs} after
     * now, past the first {@code offset} (0 to 1000), with the number of schedules whose tick is at
     * most {@code soonMs} after now ({@link Due#soon()}).
     */
    public Due due(Partition queue, long lookaheadMs, int max, long soonMs, int offset) {
        QueueKeys k = keys(queue);
        List<Object> r = RedisCalls.call("read the due schedules of", queue.name(), () -> DUE.run(script, Mode.READ_WRITE,
                ReturnType.LIST, k.of(k.schedules(), k.scheduleTicks(), k.scheduleAhead(), k.scheduleAheadDue()),
                Long.toString(lookaheadMs), Integer.toString(max),
                Long.toString(soonMs), Integer.toString(offset)));
        return ScheduleReplies.due(r);
    }

    /**
     * Applies {@code steps} (a bounded batch: the caller keeps it small) in one call, in
     * {@code queue}: the partition that holds the queue's schedules, whose count the caller found the
     * queue laid out in (refused when it is laid out anew since).
     */
    public List<Stepped> tick(Partition queue, List<Step> steps) {
        return tick(queue, steps, true);
    }

    /**
     * Like {@link #tick(Partition, List)}; {@code indexAhead} false leaves the jobs published ahead
     * out of the index a change of their schedule takes them back by (a fast forward, whose jobs are
     * made due at once).
     */
    public List<Stepped> tick(Partition queue, List<Step> steps, boolean indexAhead) {
        QueueKeys k = keys(queue);
        List<Object> args = new ArrayList<>();
        args.add(k.wakeChannel());
        args.add(Integer.toString(queue.count()));
        args.add(indexAhead ? "1" : "0");
        for (Step s : steps) {
            args.add(s.name());
            args.add(s.spec());
            args.add(Long.toString(s.tick()));
            args.add(s.fire() ? "1" : "0");
            args.add(Long.toString(s.fireAt()));
            args.add(s.next() == null ? "" : Long.toString(s.next()));
            args.add(s.skipWhileRunning() ? "skip" : "run");
        }
        List<Object> r = RedisCalls.call("tick the schedules of", queue.name(), () -> TICK.run(script, Mode.READ_WRITE,
                ReturnType.LIST, k.of(k.schedules(), k.scheduleTicks(), k.jobs(), k.delayed(), k.ready(), k.stats(),
                        k.control(), k.dead(), k.scheduleLast(), k.scheduleOutcomes(), k.scheduleAhead(),
                        k.scheduleAheadDue()), args.toArray()));
        return ScheduleReplies.stepped(r);
    }

    /**
     * Deletes schedules, with their outcomes, declaration times and parking, and the jobs of their
     * ticks published ahead whose instant is still to come; returns how many existed.
     */
    public long remove(Partition queue, List<String> names) {
        QueueKeys k = keys(queue);
        return RedisCalls.call("remove schedules of", queue.name(), () -> REMOVE.<Long>run(script, Mode.READ_WRITE,
                ReturnType.LONG, k.of(k.schedules(), k.scheduleTicks(), k.scheduleLast(), k.scheduleOutcomes(),
                        k.scheduleDeclared(), k.schedulesParked(), k.scheduleAhead(), k.scheduleAheadDue(), k.jobs(),
                        k.delayed()), names.toArray()));
    }

    /**
     * Pauses a schedule (its next tick deleted, and the jobs of its ticks published ahead whose
     * instant is still to come); returns whether it was ticking.
     */
    public boolean pause(Partition queue, String name) {
        QueueKeys k = keys(queue);
        Long r = RedisCalls.call("pause a schedule of", queue.name(), () -> SET_TICK.run(script, Mode.READ_WRITE,
                ReturnType.LONG, k.of(k.schedules(), k.scheduleTicks(), k.scheduleAhead(), k.scheduleAheadDue(), k.jobs(),
                        k.delayed()), name, "", ""));
        return r == 1;
    }

    /** Resumes a paused schedule at {@code tick}, if it still has {@code spec}; returns whether it was paused. */
    public boolean resume(Partition queue, String name, String spec, long tick) {
        QueueKeys k = keys(queue);
        Long r = RedisCalls.call("resume a schedule of", queue.name(), () -> SET_TICK.run(script, Mode.READ_WRITE,
                ReturnType.LONG, k.of(k.schedules(), k.scheduleTicks(), k.scheduleAhead(), k.scheduleAheadDue(), k.jobs(),
                        k.delayed()), name, spec,
                Long.toString(tick)));
        return r == 1;
    }

    /** One schedule, or null (two reads: its value, then its next tick). */
    public StoredSchedule find(Partition queue, String name) {
        QueueKeys k = keys(queue);
        return RedisCalls.call("read a schedule of", queue.name(), () -> {
            String value = redisson.<String, String>getMap(k.schedules(), StringCodec.INSTANCE).get(name);
            if (value == null) {
                return null;
            }
            Double tick = redisson.<String>getScoredSortedSet(k.scheduleTicks(), StringCodec.INSTANCE).getScore(name);
            return ScheduleReplies.stored(name, value, tick == null ? null : tick.longValue());
        });
    }

    /** A page of the schedules of {@code queue}, from {@code cursor} ({@code "0"} first), about {@code count} (1 to 1000). */
    public Page page(Partition queue, String cursor, int count) {
        QueueKeys k = keys(queue);
        List<Object> r = RedisCalls.call("list the schedules of", queue.name(), () -> PAGE.run(script, Mode.READ_WRITE,
                ReturnType.LIST, k.of(k.schedules(), k.scheduleTicks(), k.scheduleOutcomes(), k.scheduleDeclared(),
                        k.schedulesParked()), cursor, Integer.toString(count)));
        return ScheduleReplies.page(r);
    }

    private QueueKeys keys(Partition queue) {
        return new QueueKeys(prefix, queue);
    }
}
