package dev.delayjobs.listener;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;


/**
 * The claimer, runner, acker and outcome recorder of one partition, wired as
 * {@link PartitionConsumer} wires them, on an {@link InMemoryPartitionStore}: no Redis, bounded
 * waits only.
 */
class ClaimerRunnerTest {

    private final InMemoryPartitionStore store = new InMemoryPartitionStore("q");
    private final Handlers handlers = new Handlers();
    private ConsumerRig rig;

    @AfterEach
    void stop() {
        handlers.release.forEach((id, latch) -> latch.countDown());
        if (rig != null) {
            rig.stop();
        }
    }

    @Test
    void prefetchedJobsStartOldestFirstAndAllAreAcked() throws Exception {
        store.add("a", "b", "c", "d", "e", "f");
        rig = rig(settings(1, null, 3));
        rig.start();

        assertThat(store.awaitAcked(6, Duration.ofSeconds(10))).isTrue();
        assertThat(handlers.ran).containsExactly("a", "b", "c", "d", "e", "f");
        assertThat(rig.slots.awaitEmpty(Duration.ofSeconds(5))).isTrue();
    }

    @Test
    void stoppingHandsBackThePrefetchedJobsAndReleasesAllButTheRunningOne() throws Exception {
        handlers.holdBack("a");
        store.add("a", "b", "c", "d", "e");
        rig = rig(settings(1, null, 3));
        rig.start();
        handlers.awaitStarted("a");
        awaitUntil(() -> rig.slots.waiting() == 3, "three jobs prefetched");

        rig.claimer.stop();
        rig.claimer.handBackPrefetched();

        assertThat(store.heldIds()).as("only the running job is still held").containsExactly("a");
        assertThat(store.readyIds()).as("the prefetched ones back first, in order").containsExactly("b", "c", "d", "e");
        assertThat(store.calls()).contains("releaseAllBut [a] fence=1");
        assertThat(rig.slots.ids()).containsExactly("a");
        handlers.release.get("a").countDown();
        assertThat(store.awaitAcked(1, Duration.ofSeconds(5))).isTrue();
        assertThat(rig.slots.awaitEmpty(Duration.ofSeconds(5))).isTrue();
    }

    @Test
    void aLostClaimReplyIsHandedBackBeforeTheNextClaimUnderARaisedEpoch() throws Exception {
        store.add("a", "b");
        store.loseNextClaimReply();
        rig = rig(settings(2, null, 0));
        rig.start();

        assertThat(store.awaitAcked(2, Duration.ofSeconds(10))).isTrue();
        List<String> calls = store.calls();
        assertThat(calls.subList(0, 3)).containsExactly("claim max=2 start=2 epoch=0", "releaseAllBut [] fence=1",
                "claim max=2 start=2 epoch=1");
        assertThat(handlers.ran).containsExactlyInAnyOrder("a", "b");
    }

    @Test
    void aLostAckIsHandedBackBeforeTheNextClaimUnderARaisedEpoch() throws Exception {
        handlers.holdBack("b");
        store.add("a");
        store.failAcks(true);
        rig = rig(settings(2, null, 0));
        rig.start();
        awaitUntil(() -> handlers.ran.contains("a"), "a handled");
        // the acker gives up after 5 s once stopping: the ack is lost, the job leaves the held ones
        rig.acks.stop(Duration.ofSeconds(10));
        store.failAcks(false);
        assertThat(rig.slots.ids()).isEmpty();
        assertThat(store.heldIds()).as("still held in the store").containsExactly("a");

        store.add("b");
        handlers.awaitStarted("b");
        assertThat(store.calls()).contains("releaseAllBut [] fence=1", "claim max=2 start=2 epoch=1");
        assertThat(store.readyIds()).isEmpty();
        assertThat(handlers.ran).as("a was handed back and claimed again").containsSubsequence("a", "b");
    }

    @Test
    void aHandlerPastItsTimeoutFreesItsWorkerForTheNextJob() throws Exception {
        handlers.holdBack("stuck");
        handlers.ignoreInterrupts = true;
        store.add("stuck", "next");
        rig = rig(settings(1, Duration.ofMillis(200), 1));
        rig.start();
        handlers.awaitStarted("stuck");

        handlers.awaitStarted("next");
        assertThat(store.awaitAcked(1, Duration.ofSeconds(5))).isTrue();
        assertThat(store.acked()).containsExactly("next");
        assertThat(store.retried()).as("the timeout counted a failed attempt").containsExactly("stuck");
        assertThat(handlers.release.get("stuck").getCount()).as("while the stuck handler still runs").isEqualTo(1);
    }

    private static QueueSettings settings(int concurrency, Duration handlerTimeout, Integer prefetch) {
        return new QueueSettings(concurrency, 3, new QueueSettings.ExponentialBackoff(Duration.ofMillis(10), 2, Duration.ofSeconds(1), 0),
                true, handlerTimeout, null, false, prefetch);
    }

    private static void awaitUntil(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime() - deadline).as(what).isNegative();
            Thread.onSpinWait();
        }
    }

    /** Records what ran; a job held back waits for its latch. */
    static final class Handlers {

        final List<String> ran = new CopyOnWriteArrayList<>();
        final Map<String, CountDownLatch> release = new ConcurrentHashMap<>();
        final Map<String, CountDownLatch> started = new ConcurrentHashMap<>();
        volatile boolean ignoreInterrupts;

        void holdBack(String id) {
            release.put(id, new CountDownLatch(1));
        }

        void awaitStarted(String id) throws InterruptedException {
            assertThat(startedLatch(id).await(10, TimeUnit.SECONDS)).as(id + " started").isTrue();
        }

        private CountDownLatch startedLatch(String id) {
            return started.computeIfAbsent(id, key -> new CountDownLatch(1));
        }

        public void handle(String id) throws InterruptedException {
            ran.add(id);
            startedLatch(id).countDown();
            CountDownLatch latch = release.get(id);
            if (latch == null) {
                return;
            }
            while (true) {
                try {
                    if (latch.await(10, TimeUnit.SECONDS) || !ignoreInterrupts) {
                        return;
                    }
                }
                catch (InterruptedException ex) {
                    if (!ignoreInterrupts) {
                        throw ex;
                    }
                }
            }
        }
    }

    private ConsumerRig rig(QueueSettings settings) throws NoSuchMethodException {
        return new ConsumerRig(store, handlers, Handlers.class.getDeclaredMethod("handle", String.class), settings);
    }
}
