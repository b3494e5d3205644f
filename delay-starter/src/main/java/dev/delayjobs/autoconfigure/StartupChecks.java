package dev.delayjobs.autoconfigure;

import org.springframework.boot.diagnostics.FailureAnalyzedException;
import org.springframework.context.SmartLifecycle;

import dev.delayjobs.partition.QueueLayouts;
import dev.delayjobs.redis.DataFormat;
import dev.delayjobs.redis.RedisJobStore;

/**
 * The Redis checks of the delay starter, when the application starts (no bean method calls Redis,
 * so the context can be built without it): the key names reach Redis unchanged, the jobs are in a
 * data format this release reads, and each queue with a configured partition count is declared in
 * that count. Starts in an early phase, before the application's lifecycles, the watchdog and the
 * containers; a queue used before (a publish from a bean's {@code @PostConstruct}) was declared at
 * that use ({@link QueueLayouts#layout}).
 */
final class StartupChecks implements SmartLifecycle {

    /** Before the lifecycles of the application (phase 0 unless they say otherwise) and of the starter. */
    static final int PHASE = Integer.MIN_VALUE + 1000;

    private final RedisJobStore store;
    private final DataFormat format;
    private final QueueLayouts layouts;
    private volatile boolean running;

    StartupChecks(RedisJobStore store, DataFormat format, QueueLayouts layouts) {
        this.store = store;
        this.format = format;
        this.layouts = layouts;
    }

    @Override
    public void start() {
        // checked when the store was built already, unless its client's NameMapper could not be read
        if (store.keysCheckNeedsRedis() && !store.keysPassUnchanged()) {
            throw keysRenamed();
        }
        refuseNewerDataFormat();
        layouts.declareConfigured();
        running = true;
    }

    /**
     * Refuses a Redis whose jobs were written in a newer data format than this version reads (after
     * a rollback past a release that changed the format, say): it would misread them.
     */
    private void refuseNewerDataFormat() {
        int recorded = format.recordedOrCurrent();
        if (recorded > DataFormat.CURRENT) {
            throw new FailureAnalyzedException("The delay jobs in Redis are written in data format " + recorded
                    + ", which a newer release of the delay starter wrote; this release reads format " + DataFormat.CURRENT
                    + " and would misread them.", "Run the release that wrote them (or a newer one). If the jobs under this "
                    + "key prefix are no longer needed, delete its keys, or use another delay.key-prefix.");
        }
    }

    static FailureAnalyzedException keysRenamed() {
        return new FailureAnalyzedException("The RedissonClient renames keys (a NameMapper is configured). The "
                + "delay starter passes some key names to its Lua scripts as arguments, which a NameMapper does not "
                + "see, so jobs would be written to keys nothing reads.", "Remove the nameMapper from the Redisson "
                + "configuration, or give the application its own RedissonClient without one for the delay queues; "
                + "to keep the delay queues' keys apart from other data, set delay.key-prefix.");
    }

    @Override
    public void stop() {
        running = false;
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }
}
