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

    private final RScript script;
    private final String prefix;

    public ScheduleStore(RedissonClient redisson, String prefix) {
        this.script = redisson.getScript(StringCodec.INSTANCE);
        this.prefix = prefix;
    }

    /** What a declaration did. */
    public enum Declared { UNCHANGED, CREATED, REPLACED }

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
        QueueKeys k = keys(queue);
        Long r = RedisCalls.call("declare a schedule of", queue.name(), () -> DECLARE.run(script, Mode.READ_WRITE,
                ReturnType.LONG, k.of(k.schedules(), k.scheduleTicks()), name, spec + "\n" + payload,
                Long.toString(firstTick), paused ? "1" : "0"));
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

    private QueueKeys keys(Partition queue) {
        return new QueueKeys(prefix, queue);
    }
}
