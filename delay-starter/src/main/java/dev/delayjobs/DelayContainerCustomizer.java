package dev.delayjobs;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * Changes how the handler of a queue consumes, in code, once the annotation and the
 * {@code delay.*} properties were applied: like spring-kafka's {@code ContainerCustomizer}. Every
 * bean of this type is called for each {@code @DelayedHandler} queue, in {@code @Order}, once all
 * singletons exist and before the queue's container starts; the last one to set a value wins.
 *
 * <p>A setter refuses a value that cannot work (as the same property would) with an
 * {@link IllegalArgumentException} that names the setting, and the context does not start.
 */
@FunctionalInterface
public interface DelayContainerCustomizer {

    /**
     * Changes the settings of one queue's container.
     * @param container the queue's settings so far, changed in place
     */
    void customize(Container container);

    /** The settings of one queue's container that a customizer may read and change. */
    interface Container {

        /**
         * The queue the container consumes.
         * @return the queue's name
         */
        String getQueue();

        /**
         * How many jobs of the queue this instance handles at once.
         * @return the concurrency
         */
        int getConcurrency();

        /**
         * Sets how many jobs of the queue this instance handles at once (the worker pool is bounded
         * by three times this number, as with the property).
         * @param concurrency between 1 and 1000
         */
        void setConcurrency(int concurrency);

        /**
         * Whether the container starts with the application context.
         * @return {@code true} when it starts with the context
         */
        boolean isAutoStartup();

        /**
         * Sets whether the container starts with the application context; one that does not is
         * started through {@link DelayQueueControl} or the endpoint.
         * @param autoStartup {@code false} to leave the queue unconsumed until started
         */
        void setAutoStartup(boolean autoStartup);

        /**
         * Jobs claimed ahead of the workers.
         * @return the prefetch, or {@code null} to follow the workers' pace
         */
        @Nullable Integer getPrefetch();

        /**
         * Sets how many jobs are claimed ahead of the workers.
         * @param prefetch between 0 and 1000, or {@code null} to follow the workers' pace
         */
        void setPrefetch(@Nullable Integer prefetch);

        /**
         * How long one handler call may run before it is interrupted.
         * @return the timeout, or {@code null} for no limit
         */
        @Nullable Duration getHandlerTimeout();

        /**
         * Sets how long one handler call may run before it is interrupted and counted as a failed
         * attempt.
         * @param handlerTimeout a positive duration, or {@code null} for no limit
         */
        void setHandlerTimeout(@Nullable Duration handlerTimeout);

        /**
         * How long stopping the container waits for running handlers before interrupting them.
         * @return the shutdown timeout
         */
        Duration getShutdownTimeout();

        /**
         * Sets how long stopping the container waits for running handlers before interrupting them
         * (the containers stop together, so the longest applies to the shutdown).
         * @param shutdownTimeout zero or a positive duration
         */
        void setShutdownTimeout(Duration shutdownTimeout);
    }
}
