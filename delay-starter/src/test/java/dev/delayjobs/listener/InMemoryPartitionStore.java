package dev.delayjobs.listener;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

import dev.delayjobs.store.Claim;
import dev.delayjobs.store.ClaimRequest;
import dev.delayjobs.store.PartitionStore;
import dev.delayjobs.store.Recovery;
import dev.delayjobs.store.StoredJob;

/**
 * A deterministic, in-memory partition for the consumer's unit tests: ready jobs in order, the jobs
 * each instance holds, one claim fence, and a log of the calls made. It keeps only what the consumer
 * relies on (no delays, rate limits or pauses); a failure can be arranged for the next claim or ack,
 * after the store acted (a lost reply) or before.
 */
final class InMemoryPartitionStore implements PartitionStore {

    private final String name;
    private final Deque<StoredJob> ready = new ArrayDeque<>();
    /** Held jobs by id, as the store last handed them out. */
    private final Map<String, StoredJob> held = new LinkedHashMap<>();
    private final Map<String, String> holders = new LinkedHashMap<>();
    private final List<String> calls = new ArrayList<>();
    private final List<String> acked = new ArrayList<>();
    private final List<String> retried = new ArrayList<>();
    private long fence;
    private boolean loseNextClaimReply;
    private boolean failAcks;

    InMemoryPartitionStore(String name) {
        this.name = name;
    }

    /** Makes jobs ready, in this order; each payload is its id as a JSON string. */
    synchronized void add(String... ids) {
        for (String id : ids) {
            ready.add(new StoredJob(id, "1", 0, 0, 0, "\"" + id + "\"", Map.of()));
        }
        notifyAll();
    }

    /** The next claim takes its jobs, then fails as if its reply was lost. */
    synchronized void loseNextClaimReply() {
        loseNextClaimReply = true;
    }

    /** Acks fail (before acting) while set. */
    synchronized void failAcks(boolean fail) {
        failAcks = fail;
    }

    synchronized List<String> calls() {
        return List.copyOf(calls);
    }

    synchronized List<String> acked() {
        return List.copyOf(acked);
    }

    synchronized List<String> retried() {
        return List.copyOf(retried);
    }

    synchronized List<String> readyIds() {
        return ready.stream().map(StoredJob::id).toList();
    }

    synchronized List<String> heldIds() {
        return List.copyOf(held.keySet());
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public synchronized Claim claim(ClaimRequest request) {
        calls.add("claim max=" + request.max() + " start=" + request.start() + " epoch=" + request.epoch());
        if (request.epoch() < fence) {
            return new Claim(0, List.of(), false, 0, false, false, Set.of(), fence);
        }
        List<StoredJob> taken = new ArrayList<>();
        while (taken.size() < request.max() && !ready.isEmpty()) {
            StoredJob job = ready.poll();
            // as it reads once started, prefetched or not (as claim.lua returns it)
            StoredJob claimed = new StoredJob(job.id(), job.gen(), job.attempts() + 1, job.dueAt(),
                    job.publishedAt(), job.payload(), job.headers());
            held.put(job.id(), claimed);
            holders.put(job.id(), request.instance());
            taken.add(claimed);
        }
        if (loseNextClaimReply) {
            loseNextClaimReply = false;
            throw new IllegalStateException("the claim's reply was lost");
        }
        return new Claim(0, taken, false, 0, false, false, Set.of(), 0);
    }

    @Override
    public synchronized CompletableFuture<Integer> markStartedAsync(List<StoredJob> jobs) {
        return CompletableFuture.completedFuture((int) jobs.stream().filter(job -> held.containsKey(job.id())).count());
    }

    @Override
    public synchronized boolean markStarted(StoredJob job) {
        return held.containsKey(job.id());
    }

    @Override
    public synchronized int ack(String instance, List<StoredJob> jobs) {
        calls.add("ack " + jobs.stream().map(StoredJob::id).toList());
        if (failAcks) {
            throw new IllegalStateException("Redis is down");
        }
        int done = 0;
        for (StoredJob job : jobs) {
            if (finish(instance, job)) {
                acked.add(job.id());
                done++;
            }
        }
        notifyAll();
        return done;
    }

    @Override
    public synchronized boolean retry(String instance, StoredJob job, String error, Duration backoff) {
        calls.add("retry " + job.id() + ": " + error);
        boolean done = finish(instance, job);
        if (done) {
            retried.add(job.id());
        }
        return done;
    }

    @Override
    public synchronized boolean bury(String instance, StoredJob job, String error) {
        calls.add("bury " + job.id() + ": " + error);
        return finish(instance, job);
    }

    private boolean finish(String instance, StoredJob job) {
        if (!instance.equals(holders.get(job.id())) || held.get(job.id()).attempts() != job.attempts()) {
            return false;
        }
        held.remove(job.id());
        holders.remove(job.id());
        return true;
    }

    @Override
    public synchronized Recovery release(String instance, long fence) {
        calls.add("release fence=" + fence);
        return new Recovery(handBack(instance, List.of()), 0, 1, raise(fence));
    }

    @Override
    public synchronized Recovery releaseAllBut(String instance, Collection<String> inFlight, long fence) {
        calls.add("releaseAllBut " + inFlight.stream().sorted().toList() + " fence=" + fence);
        return new Recovery(handBack(instance, inFlight), 0, 0, raise(fence));
    }

    private long raise(long to) {
        fence = Math.max(fence, to);
        return fence;
    }

    /** Back to the front of ready, in the order they were claimed. */
    private int handBack(String instance, Collection<String> kept) {
        List<StoredJob> back = new ArrayList<>();
        for (StoredJob job : List.copyOf(held.values())) {
            if (instance.equals(holders.get(job.id())) && !kept.contains(job.id())) {
                back.add(job);
                held.remove(job.id());
                holders.remove(job.id());
            }
        }
        for (int i = back.size() - 1; i >= 0; i--) {
            ready.addFirst(back.get(i));
        }
        notifyAll();
        return back.size();
    }

    @Override
    public synchronized boolean awaitReady(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        try {
            while (ready.isEmpty() && deadline - System.nanoTime() > 0) {
                wait(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
            }
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        return !ready.isEmpty();
    }

    /** Waits up to {@code timeout} until {@code count} jobs were acked; returns whether they were. */
    synchronized boolean awaitAcked(int count, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (acked.size() < count) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            wait(Math.max(1, left / 1_000_000));
        }
        return true;
    }
}
