package dev.delayjobs.schedule;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import dev.delayjobs.core.PayloadCodec;
import dev.delayjobs.queue.QueueName;
import dev.delayjobs.redis.ScheduleStore;
import dev.delayjobs.redis.ScheduleStore.DeclareMode;
import dev.delayjobs.redis.ScheduleStore.Declared;
import dev.delayjobs.redis.ScheduleStore.StoredSchedule;

/** {@link DelaySchedules} on {@link ScheduleStore}; the queues it touches are ticked by this instance's timer. */
public final class RedisDelaySchedules implements DelaySchedules {

    private final ScheduleStore store;
    private final PayloadCodec codec;
    private final ScheduleTimer timer;

    public RedisDelaySchedules(ScheduleStore store, PayloadCodec codec, ScheduleTimer timer) {
        this.store = store;
        this.codec = codec;
        this.timer = timer;
    }

    @Override
    public boolean create(String queue, String name, ScheduleSpec when, Object payload) {
        return put(queue, name, when, payload, DeclareMode.CREATE) == Declared.CREATED;
    }

    @Override
    public boolean update(String queue, String name, ScheduleSpec when, Object payload) {
        return put(queue, name, when, payload, DeclareMode.UPDATE) != Declared.ABSENT;
    }

    private Declared put(String queue, String name, ScheduleSpec when, Object payload, DeclareMode mode) {
        QueueName q = QueueName.of(queue);
        DeclaredSchedule.checkName(name);
        if (when == null) {
            throw new IllegalArgumentException("schedule '" + name + "': when it ticks (a ScheduleSpec) must be given");
        }
        String json = codec.write(payload);
        Instant first = when.next(Instant.now());
        Declared outcome = store.declare(timer.home(q), name, when.text(), json, first == null ? Long.MAX_VALUE : first.toEpochMilli(),
                false, mode, false);
        timer.watch(q);
        return outcome;
    }

    @Override
    public boolean pause(String queue, String name) {
        return store.pause(timer.home(QueueName.of(queue)), name);
    }

    @Override
    public boolean resume(String queue, String name) {
        QueueName q = QueueName.of(queue);
        StoredSchedule stored = store.find(timer.home(q), name);
        if (stored == null || stored.nextTick() != null) {
            return false;
        }
        Instant next = ScheduleSpec.parse(stored.spec()).next(Instant.now());
        boolean resumed = next != null && store.resume(timer.home(q), name, stored.spec(), next.toEpochMilli());
        timer.watch(q);
        return resumed;
    }

    @Override
    public boolean remove(String queue, String name) {
        return store.remove(timer.home(QueueName.of(queue)), List.of(name)) == 1;
    }

    @Override
    public Page list(String queue, String cursor, int count) {
        if (count < 1 || count > 1000) {
            throw new IllegalArgumentException("count must be 1 to 1000, was " + count);
        }
        QueueName q = QueueName.of(queue);
        ScheduleStore.Page page = store.page(timer.home(q), cursor == null ? "0" : cursor, count);
        List<ScheduleInfo> out = new ArrayList<>();
        for (ScheduleStore.Listed s : page.schedules()) {
            out.add(info(q, s, page.now()));
        }
        return new Page(page.cursor(), out);
    }

    private static ScheduleInfo info(QueueName queue, ScheduleStore.Listed listed, long now) {
        StoredSchedule s = listed.schedule();
        ScheduleSpec spec;
        try {
            spec = ScheduleSpec.parse(s.spec());
        }
        catch (IllegalArgumentException ex) {
            spec = null;
        }
        ScheduleStore.TickOutcome o = listed.outcome();
        Long declared = listed.declaredAt();
        return new ScheduleInfo(queue.value(), s.name(), spec, s.payload(),
                s.nextTick() == null ? null : Instant.ofEpochMilli(s.nextTick()), s.nextTick() == null && !listed.parked(),
                o == null ? null : new LastOutcome(o.outcome(), Instant.ofEpochMilli(o.at()), Instant.ofEpochMilli(o.tick())),
                declared == null ? null : Instant.ofEpochMilli(declared),
                declared != null && declared < now - ScheduleUpkeep.UNDECLARED_AFTER.toMillis());
    }
}
