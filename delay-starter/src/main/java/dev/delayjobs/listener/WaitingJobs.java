package dev.delayjobs.listener;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The jobs waiting in a partition's prefetch buffer: each group's in the order claimed (due order),
 * the groups taken in turn. A group's jobs claimed behind a buffer full of another group's flood
 * therefore start within a turn of it, not after the buffer drains; the jobs of a queue without
 * groups leave in the order claimed. Not thread-safe: {@link PartitionSlots} guards it with its
 * queue's lock.
 */
final class WaitingJobs {

    /** Group ('' the default group) -> its waiting jobs; the map's order is the turn, the first goes next. */
    private final Map<String, ArrayDeque<Execution>> byGroup = new LinkedHashMap<>();
    private int size;

    void addAll(List<Execution> jobs) {
        for (Execution job : jobs) {
            String group = job.job.group() == null ? "" : job.job.group();
            byGroup.computeIfAbsent(group, g -> new ArrayDeque<>()).add(job);
        }
        size += jobs.size();
    }

    /** The next job in turn: the oldest of the group whose turn it is, which goes to the back; null when none waits. */
    Execution poll() {
        Iterator<Map.Entry<String, ArrayDeque<Execution>>> groups = byGroup.entrySet().iterator();
        if (!groups.hasNext()) {
            return null;
        }
        Map.Entry<String, ArrayDeque<Execution>> first = groups.next();
        ArrayDeque<Execution> jobs = first.getValue();
        Execution next = jobs.poll();
        size--;
        if (jobs.isEmpty()) {
            groups.remove();
        }
        else if (byGroup.size() > 1) {
            groups.remove();
            byGroup.put(first.getKey(), jobs);
        }
        return next;
    }

    /** Takes every waiting job out: each group's in the order claimed. */
    List<Execution> drain() {
        List<Execution> all = new ArrayList<>(size);
        byGroup.values().forEach(all::addAll);
        byGroup.clear();
        size = 0;
        return all;
    }

    boolean isEmpty() {
        return size == 0;
    }

    int size() {
        return size;
    }
}
