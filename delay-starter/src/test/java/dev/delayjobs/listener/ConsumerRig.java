package dev.delayjobs.listener;

import java.lang.reflect.Method;
import java.time.Duration;

import dev.delayjobs.core.JobEvents;
import dev.delayjobs.core.PayloadCodec;
import dev.delayjobs.queue.Partition;
import dev.delayjobs.queue.QueueName;
import dev.delayjobs.store.PartitionStore;
import dev.delayjobs.threads.WorkerThreads;
import tools.jackson.databind.json.JsonMapper;

/**
 * One partition's consumer parts wired as {@code PartitionConsumer} wires them, on any
 * {@link PartitionStore} (the in-memory one or Redis), with a handler method taking a {@code String}
 * payload: the slots, the acker, the runner and the claimer of queue {@code q}, instance {@code i1}.
 */
final class ConsumerRig {

    private static final PayloadCodec CODEC = new PayloadCodec(JsonMapper.builder().build(), 1 << 20, false);

    final PartitionSlots slots;
    final AckBatcher acks;
    final JobRunner runner;
    final Claimer claimer;

    /** @param method a method of {@code handlers} that takes the job's payload as a {@code String} */
    ConsumerRig(PartitionStore store, Object handlers, Method method, QueueSettings settings) {
        HandlerEndpoint endpoint = new HandlerEndpoint("handlers", handlers, method, QueueName.of("q"), settings,
                CODEC.type(String.class), String.class, false);
        Partition partition = QueueName.of("q").whole();
        QueueSlots queue = new QueueSlots(settings.concurrency(), 1);
        PrefetchPace pace = PrefetchPace.fixed(settings.prefetch());
        slots = queue.partition(pace.most());
        acks = new AckBatcher(store, "i1", new PendingAcks(), slots::acked, lost -> lost.forEach(slots::lost));
        OutcomeRecorder outcomes = new OutcomeRecorder(endpoint, store, "i1", slots, () -> false, JobEvents.NONE);
        runner = new JobRunner(endpoint, CODEC, JobEvents.NONE, outcomes, acks, slots, queue.share(),
                WorkerThreads.PLATFORM, new StartMarks(store), pace);
        claimer = new Claimer(endpoint, partition, store, "i1", Duration.ofSeconds(30), new ClaimGate(partition, null),
                runner, slots, pace, WorkerThreads.PLATFORM);
    }

    void start() {
        acks.start();
        claimer.start();
    }

    void stop() {
        claimer.stop();
        claimer.handBackPrefetched();
        slots.interruptAll();
        acks.stop(Duration.ofSeconds(1));
        runner.shutdown();
    }
}
