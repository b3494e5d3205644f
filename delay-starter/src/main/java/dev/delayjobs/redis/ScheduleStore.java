package dev.delayjobs.redis;

import java.util.ArrayList;
import java.util.List;

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

    /** A stored schedule: its spec, payload and next tick (epoch ms; null while paused). */
    public record StoredSchedule(String name, String spec, String payload, Long nextTick) {
    }

    /** A page of schedules and the cursor of the next ({@code "0"} after the last). */
    public record Page(String cursor, List<StoredSchedule> schedules) {
    }

    /** A stored schedule whose next tick is due: its name, that tick (epoch ms) and its spec and payload. */
    public record DueSchedule(String name, long tick, String spec, String payload) {
    }

    /** The due schedules read in one call, with the Redis clock's now (epoch ms). */
    public record Due(long now, List<DueSchedule> schedules) {
    }

    /**
     * One schedule's step: publish the job of {@code tick} due at {@code fireAt} (unless
     * {@code fire} is false: a misfire skipped) and store {@code next} (null: none), if the schedule
     * still has {@code tick} and {@code spec}.
     */
    public record Step(String name, String spec, long tick, boolean fire, long fireAt, Long next) {
    }

    /** What a step did. */
    public enum Stepped { MOVED_ON, PUBLISHED, SKIPPED }

    /**
     * Stores schedule {@code name} with {@code spec} and {@code payload}, its first tick at
     * {@code firstTick}; the same spec and payload stored already change nothing; another replaces
     * the pending tick. A new schedule with {@code paused} gets no tick until resumed.
     */
    public Declared declare(Partition queue, String name, String spec, String payload, long firstTick, boolean paused) {
        return declare(queue, name, spec, payload, firstTick, paused, DeclareMode.PUT);
    }

    /** Like {@link #declare(Partition, String, String, String, long, boolean)}, creating or updating only. */
    public Declared declare(Partition queue, String name, String spec, String payload, long firstTick, boolean paused,
            DeclareMode mode) {
        QueueKeys k = keys(queue);
        Long r = RedisCalls.call("declare a schedule of", queue.name(), () -> DECLARE.run(script, Mode.READ_WRITE,
                ReturnType.LONG, k.of(k.schedules(), k.scheduleTicks()), name, spec + "\n" + payload,
                Long.toString(firstTick), paused ? "1" : "0", mode.name().toLowerCase(java.util.Locale.ROOT)));
        return Declared.values()[r.intValue()];
    }

    /** Up to {@code max} schedules (1 to 1000) whose next tick is at most {@code lookaheadMs} after now. */
    public Due due(Partition queue, long lookaheadMs, int max) {
        QueueKeys k = keys(queue);
        List<Object> r = RedisCalls.call("read the due schedules of", queue.name(), () -> DUE.run(script, Mode.READ_WRITE,
                ReturnType.LIST, k.of(k.schedules(), k.scheduleTicks()), Long.toString(lookaheadMs), Integer.toString(max)));
        List<DueSchedule> schedules = new ArrayList<>();
        for (int i = 1; i + 2 < r.size(); i += 3) {
            String value = r.get(i + 2).toString();
            int newline = value.indexOf('\n');
            schedules.add(new DueSchedule(r.get(i).toString(), (long) Double.parseDouble(r.get(i + 1).toString()),
                    value.substring(0, newline), value.substring(newline + 1)));
        }
        return new Due(Long.parseLong(r.get(0).toString()), schedules);
    }

    /** Applies {@code steps} (a bounded batch: the caller keeps it small) in one call. */
    public List<Stepped> tick(Partition queue, List<Step> steps) {
        QueueKeys k = keys(queue);
        List<Object> args = new ArrayList<>();
        args.add(k.wakeChannel());
        for (Step s : steps) {
            args.add(s.name());
            args.add(s.spec());
            args.add(Long.toString(s.tick()));
            args.add(s.fire() ? "1" : "0");
            args.add(Long.toString(s.fireAt()));
            args.add(s.next() == null ? "" : Long.toString(s.next()));
        }
        List<Object> r = RedisCalls.call("tick the schedules of", queue.name(), () -> TICK.run(script, Mode.READ_WRITE,
                ReturnType.LIST, k.of(k.schedules(), k.scheduleTicks(), k.jobs(), k.delayed(), k.ready(), k.stats(),
                        k.control()), args.toArray()));
        List<Stepped> out = new ArrayList<>();
        for (Object o : r) {
            int status = Integer.parseInt(o.toString());
            out.add(status == 1 ? Stepped.PUBLISHED : status == 2 ? Stepped.SKIPPED : Stepped.MOVED_ON);
        }
        return out;
    }

    /** Deletes schedules; returns how many existed. */
    public long remove(Partition queue, List<String> names) {
        QueueKeys k = keys(queue);
        return RedisCalls.call("remove schedules of", queue.name(), () -> REMOVE.<Long>run(script, Mode.READ_WRITE,
                ReturnType.LONG, k.of(k.schedules(), k.scheduleTicks()), names.toArray()));
    }

    /** Pauses a schedule (its next tick deleted); returns whether it was ticking. */
    public boolean pause(Partition queue, String name) {
        QueueKeys k = keys(queue);
        Long r = RedisCalls.call("pause a schedule of", queue.name(), () -> SET_TICK.run(script, Mode.READ_WRITE,
                ReturnType.LONG, k.of(k.schedules(), k.scheduleTicks()), name, "", ""));
        return r == 1;
    }

    /** Resumes a paused schedule at {@code tick}, if it still has {@code spec}; returns whether it was paused. */
    public boolean resume(Partition queue, String name, String spec, long tick) {
        QueueKeys k = keys(queue);
        Long r = RedisCalls.call("resume a schedule of", queue.name(), () -> SET_TICK.run(script, Mode.READ_WRITE,
                ReturnType.LONG, k.of(k.schedules(), k.scheduleTicks()), name, spec, Long.toString(tick)));
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
            int newline = value.indexOf('\n');
            return new StoredSchedule(name, value.substring(0, newline), value.substring(newline + 1),
                    tick == null ? null : tick.longValue());
        });
    }

    /** A page of the schedules of {@code queue}, from {@code cursor} ({@code "0"} first), about {@code count} (1 to 1000). */
    public Page page(Partition queue, String cursor, int count) {
        QueueKeys k = keys(queue);
        List<Object> r = RedisCalls.call("list the schedules of", queue.name(), () -> PAGE.run(script, Mode.READ_WRITE,
                ReturnType.LIST, k.of(k.schedules(), k.scheduleTicks()), cursor, Integer.toString(count)));
        List<StoredSchedule> schedules = new ArrayList<>();
        for (int i = 1; i + 2 < r.size(); i += 3) {
            String value = r.get(i + 1).toString();
            int newline = value.indexOf('\n');
            String tick = r.get(i + 2).toString();
            schedules.add(new StoredSchedule(r.get(i).toString(), value.substring(0, newline), value.substring(newline + 1),
                    tick.isEmpty() ? null : (long) Double.parseDouble(tick)));
        }
        return new Page(r.get(0).toString(), schedules);
    }

    private QueueKeys keys(Partition queue) {
        return new QueueKeys(prefix, queue);
    }
}
