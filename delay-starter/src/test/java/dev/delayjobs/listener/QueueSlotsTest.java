package dev.delayjobs.listener;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import dev.delayjobs.store.StoredJob;

/**
 * The bookkeeping of one queue's claimed jobs without a store: workers, buffer room and held jobs
 * change only through {@link QueueSlots}, and no prefetched job waits while a worker is free.
 */
class QueueSlotsTest {

    private static final Duration NO_WAIT = Duration.ZERO;

    @Test
    void theReservedWorkersStartTheFirstJobsAndTheOthersWaitOldestFirst() throws Exception {
        QueueSlots queue = new QueueSlots(2, 1);
        PartitionSlots slots = queue.partition(3);

        QueueSlots.Reservation reserved = slots.reserve(3, NO_WAIT);
        assertThat(reserved).isEqualTo(new QueueSlots.Reservation(2, 3));
        List<Execution> claimed = executions("a", "b", "c", "d", "e");
        assertThat(ids(slots.deliver(reserved, claimed))).containsExactly("a", "b");
        assertThat(slots.waiting()).isEqualTo(3);
        assertThat(slots.ids()).containsExactlyInAnyOrder("a", "b", "c", "d", "e");

        assertThat(id(slots.finished(claimed.get(0)))).isEqualTo("c");
        assertThat(id(slots.finished(claimed.get(1)))).isEqualTo("d");
        assertThat(id(slots.finished(claimed.get(2)))).isEqualTo("e");
        assertThat(slots.finished(claimed.get(3))).as("none waits: the worker is freed").isNull();
        assertThat(slots.finished(claimed.get(4))).isNull();
        assertThat(slots.ids()).isEmpty();
        assertThat(slots.reserve(3, NO_WAIT)).as("every worker and all the room free again")
                .isEqualTo(new QueueSlots.Reservation(2, 3));
    }

    @Test
    void whatAClaimDidNotFillIsHandedBack() throws Exception {
        QueueSlots queue = new QueueSlots(3, 1);
        PartitionSlots slots = queue.partition(4);

        QueueSlots.Reservation reserved = slots.reserve(4, NO_WAIT);
        List<Execution> claimed = executions("a");
        assertThat(ids(slots.deliver(reserved, claimed))).containsExactly("a");

        assertThat(slots.reserve(4, NO_WAIT)).as("two workers and all the room back")
                .isEqualTo(new QueueSlots.Reservation(2, 4));
        // a failed claim hands everything back
        slots.deliver(new QueueSlots.Reservation(2, 4), List.of());
        assertThat(slots.reserve(4, NO_WAIT)).isEqualTo(new QueueSlots.Reservation(2, 4));
    }

    @Test
    void aFreedWorkerGoesToAJobWaitingInAnotherPartitionBeforeTheClaimers() throws Exception {
        QueueSlots queue = new QueueSlots(1, 2);
        PartitionSlots first = queue.partition(2);
        PartitionSlots second = queue.partition(2);
        List<Execution> a = executions("a1");
        first.deliver(first.reserve(0, NO_WAIT), a);

        QueueSlots.Reservation roomOnly = second.reserve(2, NO_WAIT);
        assertThat(roomOnly).as("no free worker, room only").isEqualTo(new QueueSlots.Reservation(0, 2));
        List<Execution> b = executions("b1", "b2");
        assertThat(second.deliver(roomOnly, b)).as("no worker to start them").isEmpty();

        assertThat(id(first.finished(a.get(0)))).isEqualTo("b1");
        assertThat(id(second.finished(b.get(0)))).isEqualTo("b2");
        assertThat(second.finished(b.get(1))).isNull();
        assertThat(first.reserve(2, NO_WAIT).workers()).isEqualTo(1);
    }

    @Test
    void aWorkerFreedWhileAClaimIsOnItsWayStartsOneOfItsPrefetchedJobs() throws Exception {
        QueueSlots queue = new QueueSlots(2, 1);
        PartitionSlots slots = queue.partition(4);
        List<Execution> running = executions("r");
        slots.deliver(slots.reserve(0, NO_WAIT), running);
        QueueSlots.Reservation reserved = slots.reserve(4, NO_WAIT);
        assertThat(reserved).isEqualTo(new QueueSlots.Reservation(1, 4));

        assertThat(slots.finished(running.get(0))).as("nothing waits yet").isNull();
        assertThat(ids(slots.deliver(reserved, executions("a", "b", "c")))).as("b takes the worker freed meanwhile")
                .containsExactly("a", "b");
        assertThat(slots.waiting()).isEqualTo(1);
    }

    @Test
    void claimersWaitingForAWorkerAreServedInTurn() throws Exception {
        QueueSlots queue = new QueueSlots(1, 3);
        PartitionSlots first = queue.partition(0);
        PartitionSlots second = queue.partition(0);
        PartitionSlots third = queue.partition(0);
        List<Execution> a = executions("a");
        first.deliver(first.reserve(0, NO_WAIT), a);
        ExecutorService claimers = Executors.newFixedThreadPool(2);
        try {
            Future<QueueSlots.Reservation> secondTurn = claimers.submit(() -> second.reserve(0, NO_WAIT));
            awaitClaimersWaiting(queue, 1);
            Future<QueueSlots.Reservation> thirdTurn = claimers.submit(() -> third.reserve(0, NO_WAIT));
            awaitClaimersWaiting(queue, 2);

            assertThat(first.finished(a.get(0))).isNull();
            assertThat(secondTurn.get(5, TimeUnit.SECONDS).workers()).as("the first to wait is served first").isEqualTo(1);
            assertThat(thirdTurn.isDone()).isFalse();
            List<Execution> b = executions("b");
            second.deliver(new QueueSlots.Reservation(1, 0), b);
            second.finished(b.get(0));
            assertThat(thirdTurn.get(5, TimeUnit.SECONDS).workers()).isEqualTo(1);
        }
        finally {
            claimers.shutdownNow();
        }
    }

    @Test
    void drainTakesTheWaitingJobsOutAndLeavesTheRunningOnesHeld() throws Exception {
        QueueSlots queue = new QueueSlots(1, 1);
        PartitionSlots slots = queue.partition(3);
        slots.deliver(slots.reserve(3, NO_WAIT), executions("a", "b", "c", "d"));

        assertThat(ids(slots.drain())).containsExactly("b", "c", "d");
        assertThat(slots.ids()).containsExactly("a");
        assertThat(slots.reserve(3, NO_WAIT).room()).as("their room is free").isEqualTo(3);
    }

    @Test
    void aJobWhoseAckIsPendingStaysHeldUntilItIsAckedOrLost() throws Exception {
        QueueSlots queue = new QueueSlots(2, 1);
        PartitionSlots slots = queue.partition(0);
        List<Execution> claimed = executions("acked", "lost");
        slots.deliver(slots.reserve(0, NO_WAIT), claimed);
        claimed.forEach(Execution::ackQueued);
        claimed.forEach(slots::finished);
        assertThat(slots.ids()).containsExactlyInAnyOrder("acked", "lost");

        slots.acked(claimed.get(0).job);
        assertThat(slots.takeUnknown()).isFalse();
        slots.lost(claimed.get(1).job);
        assertThat(slots.ids()).isEmpty();
        assertThat(slots.takeUnknown()).as("a lost ack: the store may hold a job this instance does not").isTrue();
        assertThat(slots.takeUnknown()).as("said once").isFalse();
        assertThat(slots.awaitEmpty(NO_WAIT)).isTrue();
    }

    @Test
    void anAckOfAnOlderClaimOfTheSameIdLeavesTheNewerOneHeld() throws Exception {
        PartitionSlots slots = new QueueSlots(1, 1).partition(0);
        Execution older = executions("a").get(0);
        slots.deliver(slots.reserve(0, NO_WAIT), List.of(older));
        slots.finished(older);
        Execution newer = executions("a").get(0);
        slots.deliver(slots.reserve(0, NO_WAIT), List.of(newer));

        slots.acked(older.job);
        assertThat(slots.ids()).containsExactly("a");
    }

    @Test
    void anAbandonedHandlerFreesItsWorkerOrKeepsItUntilItReturns() throws Exception {
        QueueSlots queue = new QueueSlots(1, 1);
        PartitionSlots slots = queue.partition(2);
        List<Execution> claimed = executions("stuck", "next", "later");
        slots.deliver(slots.reserve(2, NO_WAIT), claimed);

        assertThat(id(slots.abandoned(claimed.get(0), true))).as("the worker goes on with the next job").isEqualTo("next");
        assertThat(slots.ids()).containsExactlyInAnyOrder("next", "later");

        assertThat(slots.abandoned(claimed.get(1), false)).as("the stuck thread keeps the worker").isNull();
        assertThat(slots.waiting()).isEqualTo(1);
        assertThat(id(slots.workerIdle())).as("its thread returned").isEqualTo("later");
    }

    @Test
    void awaitEmptyReturnsOnceTheLastJobLeaves() throws Exception {
        PartitionSlots slots = new QueueSlots(1, 1).partition(0);
        List<Execution> claimed = executions("a");
        slots.deliver(slots.reserve(0, NO_WAIT), claimed);
        assertThat(slots.awaitEmpty(Duration.ofMillis(20))).isFalse();

        CountDownLatch waiting = new CountDownLatch(1);
        Thread finisher = new Thread(() -> {
            try {
                waiting.await();
            }
            catch (InterruptedException ex) {
                return;
            }
            slots.finished(claimed.get(0));
        });
        finisher.start();
        waiting.countDown();
        assertThat(slots.awaitEmpty(Duration.ofSeconds(5))).isTrue();
        finisher.join(5000);
    }

    /**
     * Workers that finish while claims deliver, in two partitions: every job runs exactly once, and
     * when all are done no job waits and every worker is free (none was stranded in a buffer).
     */
    @Test
    void noPrefetchedJobIsStrandedWhileWorkersFinishConcurrently() throws Exception {
        int concurrency = 3;
        QueueSlots queue = new QueueSlots(concurrency, 2);
        List<PartitionSlots> partitions = List.of(queue.partition(5), queue.partition(5));
        Map<String, Boolean> ran = new ConcurrentHashMap<>();
        Set<String> twice = ConcurrentHashMap.newKeySet();
        ExecutorService workers = Executors.newCachedThreadPool();
        int perPartition = 2000;
        CountDownLatch allRan = new CountDownLatch(2 * perPartition);
        List<Thread> claimers = new ArrayList<>();
        List<Throwable> failures = Collections.synchronizedList(new ArrayList<>());
        for (int p = 0; p < 2; p++) {
            PartitionSlots slots = partitions.get(p);
            String prefix = "p" + p + "-";
            Thread claimer = new Thread(() -> {
                int next = 0;
                try {
                    while (next < perPartition) {
                        QueueSlots.Reservation reserved = slots.reserve(p(next) ? 5 : 0, Duration.ofSeconds(5));
                        int count = Math.min(reserved.jobs(), Math.min(perPartition - next, 1 + next % 4));
                        List<Execution> claimed = new ArrayList<>();
                        for (int i = 0; i < count; i++) {
                            claimed.add(execution(prefix + next++, i >= reserved.workers()));
                        }
                        for (Execution start : slots.deliver(reserved, claimed)) {
                            workers.execute(() -> runOn(start, partitions, ran, twice, allRan));
                        }
                    }
                }
                catch (Throwable ex) {
                    failures.add(ex);
                }
            });
            claimers.add(claimer);
            claimer.start();
        }
        try {
            assertThat(allRan.await(30, TimeUnit.SECONDS)).as("every job ran").isTrue();
            for (Thread claimer : claimers) {
                claimer.join(5000);
            }
            assertThat(failures).isEmpty();
            assertThat(twice).isEmpty();
            assertThat(partitions.get(0).waiting() + partitions.get(1).waiting()).isZero();
            assertThat(partitions.get(0).ids()).isEmpty();
            assertThat(partitions.get(0).reserve(5, NO_WAIT).workers()).as("the share of the workers, all free")
                    .isEqualTo(2);
            assertThat(partitions.get(1).reserve(5, NO_WAIT).workers()).isEqualTo(1);
        }
        finally {
            workers.shutdownNow();
        }
    }

    /** Alternates claims with and without a buffer. */
    private static boolean p(int next) {
        return next % 3 != 0;
    }

    /** A worker: runs the job, then each next one the slots hand it. */
    private static void runOn(Execution first, List<PartitionSlots> partitions, Map<String, Boolean> ran,
            Set<String> twice, CountDownLatch allRan) {
        Execution next = first;
        while (next != null) {
            if (ran.putIfAbsent(next.job.id(), true) != null) {
                twice.add(next.job.id());
            }
            PartitionSlots own = partitions.get(next.job.id().startsWith("p0-") ? 0 : 1);
            Execution done = next;
            next = own.finished(done);
            // counted once its worker moved on: when all are counted, every worker is idle
            allRan.countDown();
        }
    }

    private static void awaitClaimersWaiting(QueueSlots queue, int count) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (queue.claimersWaiting() < count) {
            assertThat(System.nanoTime() - deadline).as("claimers waiting").isNegative();
            Thread.onSpinWait();
        }
    }

    private static List<Execution> executions(String... ids) {
        List<Execution> executions = new ArrayList<>();
        for (String id : ids) {
            executions.add(execution(id, false));
        }
        return executions;
    }

    private static Execution execution(String id, boolean prefetched) {
        return new Execution(null, new StoredJob(id, "1", 1, 0, 0, "\"" + id + "\"", Map.of()), 0, 0, prefetched, false);
    }

    private static List<String> ids(List<Execution> executions) {
        return executions.stream().map(execution -> execution.job.id()).toList();
    }

    private static String id(Execution execution) {
        return execution == null ? null : execution.job.id();
    }
}
