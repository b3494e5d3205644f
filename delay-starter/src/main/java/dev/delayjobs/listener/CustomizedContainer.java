package dev.delayjobs.listener;

import java.time.Duration;

import dev.delayjobs.DelayContainerCustomizer;

/** What {@link DelayContainerCustomizer}s see of one queue's container, before it is built. */
final class CustomizedContainer implements DelayContainerCustomizer.Container {

    private final String queue;
    private QueueSettings settings;
    private Duration shutdownTimeout;

    CustomizedContainer(String queue, QueueSettings settings, Duration shutdownTimeout) {
        this.queue = queue;
        this.settings = settings;
        this.shutdownTimeout = shutdownTimeout;
    }

    QueueSettings settings() {
        return settings;
    }

    Duration shutdownTimeout() {
        return shutdownTimeout;
    }

    @Override
    public String getQueue() {
        return queue;
    }

    @Override
    public int getConcurrency() {
        return settings.concurrency();
    }

    // each setter builds new settings, so a value that cannot work is refused where it is set
    @Override
    public void setConcurrency(int concurrency) {
        settings = settings.withConcurrency(concurrency);
    }

    @Override
    public boolean isAutoStartup() {
        return settings.autoStartup();
    }

    @Override
    public void setAutoStartup(boolean autoStartup) {
        settings = settings.withAutoStartup(autoStartup);
    }

    @Override
    public Integer getPrefetch() {
        return settings.prefetch();
    }

    @Override
    public void setPrefetch(Integer prefetch) {
        settings = settings.withPrefetch(prefetch);
    }

    @Override
    public Duration getHandlerTimeout() {
        return settings.handlerTimeout();
    }

    @Override
    public void setHandlerTimeout(Duration handlerTimeout) {
        settings = settings.withHandlerTimeout(handlerTimeout);
    }

    @Override
    public Duration getShutdownTimeout() {
        return shutdownTimeout;
    }

    @Override
    public void setShutdownTimeout(Duration shutdownTimeout) {
        if (shutdownTimeout == null || shutdownTimeout.isNegative()) {
            throw new QueueSettings.InvalidSettingException("shutdown-timeout", shutdownTimeout, "must be zero or positive");
        }
        this.shutdownTimeout = shutdownTimeout;
    }
}
