package dev.delayjobs.test;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/** What handlers saw, in the order they saw it: one entry per delivery. */
public final class Recorder {

    /** One handler call: the job id (or payload key), when it ran, and which delivery it was. */
    public record Delivery(String id, Instant handledAt, Instant dueAt, int attempt, Object payload) {
    }

    private final List<Delivery> deliveries = new CopyOnWriteArrayList<>();
    private final Map<String, Integer> counts = new ConcurrentHashMap<>();

    public void record(String id, Instant dueAt, int attempt, Object payload) {
        deliveries.add(new Delivery(id, Instant.now(), dueAt, attempt, payload));
        counts.merge(id, 1, Integer::sum);
    }

    public List<Delivery> deliveries() {
        return List.copyOf(deliveries);
    }

    public int count(String id) {
        return counts.getOrDefault(id, 0);
    }

    public Map<String, Integer> counts() {
        return Map.copyOf(counts);
    }

    public int total() {
        return deliveries.size();
    }

    /**
     * Asserts what several instances' handlers saw together: every one of {@code ids} handled
     * exactly once, nothing else, and none before its due time.
     */
    public static void assertEachHandledOnceAndNoneEarly(Collection<String> ids, Recorder... recorders) {
        Map<String, Integer> union = new HashMap<>();
        List<Delivery> all = new ArrayList<>();
        for (Recorder recorder : recorders) {
            recorder.counts().forEach((id, count) -> union.merge(id, count, Integer::sum));
            all.addAll(recorder.deliveries());
        }
        assertThat(union).containsOnlyKeys(ids).allSatisfy((id, count) -> assertThat(count).as(id).isEqualTo(1));
        assertThat(all).allSatisfy(d -> assertThat(d.handledAt()).as(d.id()).isAfterOrEqualTo(d.dueAt()));
    }
}
