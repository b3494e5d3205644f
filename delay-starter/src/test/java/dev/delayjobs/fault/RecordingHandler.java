package dev.delayjobs.fault;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.delayjobs.DelayedHandler;
import dev.delayjobs.DelayedJob;
import dev.delayjobs.fault.ConsumerMain.Work;
import dev.delayjobs.fault.HandledLog.Handled;

/**
 * The in-process consumer of the Redis fault tests: works as long as the job says, then records
 * it. Its queue is the property {@code fault.queue}.
 */
class RecordingHandler {

    final List<Handled> handled = new CopyOnWriteArrayList<>();

    @DelayedHandler(queue = "${fault.queue}", concurrency = "4")
    void handle(DelayedJob<Work> job) throws InterruptedException {
        long startedAt = System.currentTimeMillis();
        Thread.sleep(job.payload().firstWorkMs());
        handled.add(new Handled(job.id(), job.attempt(), startedAt, job.dueAt().toEpochMilli(),
                System.currentTimeMillis(), 0));
    }
}
