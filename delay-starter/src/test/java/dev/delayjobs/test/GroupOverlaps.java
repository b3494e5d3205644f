package dev.delayjobs.test;

import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What handlers of grouped jobs saw, across every context of one JVM: the jobs of each group running
 * at each moment, every start that met another job of its group still running, and the order the
 * jobs ran in. A handler calls {@link #run} around its work.
 */
public final class GroupOverlaps {

    private final Map<String, AtomicInteger> running = new ConcurrentHashMap<>();
    private final AtomicInteger runningAll = new AtomicInteger();
    private final AtomicInteger mostAtOnce = new AtomicInteger();
    private final Queue<String> overlaps = new ConcurrentLinkedQueue<>();
    private final Queue<String> handled = new ConcurrentLinkedQueue<>();

    /** Runs {@code work} as job {@code name} of {@code group}, noting an overlap with another job of the group. */
    public void run(String group, String name, Runnable work) {
        AtomicInteger ofGroup = running.computeIfAbsent(group, g -> new AtomicInteger());
        int now = ofGroup.incrementAndGet();
        mostAtOnce.accumulateAndGet(runningAll.incrementAndGet(), Math::max);
        if (now > 1) {
            overlaps.add(name + " started while " + (now - 1) + " other job(s) of " + group + " ran");
        }
        try {
            work.run();
        }
        finally {
            runningAll.decrementAndGet();
            ofGroup.decrementAndGet();
            handled.add(name);
        }
    }

    /** Sleeps {@code millis}: a handler's work, long enough that a second job of its group would meet it. */
    public static Runnable working(long millis) {
        return () -> {
            try {
                Thread.sleep(millis);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        };
    }

    /** Starts that met another job of their group running. */
    public List<String> overlaps() {
        return List.copyOf(overlaps);
    }

    /** The jobs handled, in the order they ended. */
    public List<String> handled() {
        return List.copyOf(handled);
    }

    /** How many jobs of any group ran at once at most. */
    public int mostAtOnce() {
        return mostAtOnce.get();
    }
}
