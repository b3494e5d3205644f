package dev.delayjobs.core;

import java.time.Duration;
import java.util.List;

/**
 * Told of what this instance does with jobs: the hook the metrics hang on. Implementations must be
 * quick and must not throw; they run on publishing and worker threads.
 */
public interface DelayQueueObserver {

    /** Does nothing. */
    DelayQueueObserver NONE = new DelayQueueObserver() {
    };

    /** What became of a handled job. */
    enum Outcome {
        /** The handler returned; the job is done. */
        COMPLETED,
        /** The handler failed; the job waits for another attempt. */
        RETRIED,
        /** The handler failed for the last time, or the payload could not be read; the job is dead. */
        DEAD
    }

    /**
     * One observer telling all of {@code observers}, in order. An observer that throws is logged and
     * passed over: a broken metrics hook must not cost a worker or leave a job in flight.
     */
    static DelayQueueObserver of(List<DelayQueueObserver> observers) {
        if (observers.isEmpty()) {
            return NONE;
        }
        List<DelayQueueObserver> all = List.copyOf(observers);
        return new DelayQueueObserver() {
            @Override
            public void consuming(String queue) {
                tell(o -> o.consuming(queue));
            }

            @Override
            public void published(String queue, int count) {
                tell(o -> o.published(queue, count));
            }

            @Override
            public void started(String queue, Duration lateness) {
                tell(o -> o.started(queue, lateness));
            }

            @Override
            public void finished(String queue, Outcome outcome, Duration duration) {
                tell(o -> o.finished(queue, outcome, duration));
            }

            private void tell(java.util.function.Consumer<DelayQueueObserver> call) {
                for (DelayQueueObserver observer : all) {
                    try {
                        call.accept(observer);
                    }
                    catch (RuntimeException | LinkageError ex) {
                        org.apache.commons.logging.LogFactory.getLog(DelayQueueObserver.class)
                                .warn("DelayQueueObserver " + observer.getClass().getName() + " threw; ignored", ex);
                    }
                }
            }
        };
    }

    /** A handler of this instance starts consuming {@code queue}. */
    default void consuming(String queue) {
    }

    /** {@code count} jobs were stored by a publish call of this instance. */
    default void published(String queue, int count) {
    }

    /** A handler of this instance starts a job, {@code lateness} after the job became due. */
    default void started(String queue, Duration lateness) {
    }

    /** A handler of this instance finished a job after {@code duration}. */
    default void finished(String queue, Outcome outcome, Duration duration) {
    }
}
