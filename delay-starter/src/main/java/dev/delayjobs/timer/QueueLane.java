package dev.delayjobs.timer;

import java.util.LinkedHashSet;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Runs one queue's watchdog work one task at a time, on threads shared by every queue. A Redis
 * call stuck on one queue's shard (a master that died or hangs) holds one thread and that queue's
 * lane; the other queues' transfers, sweeps and heartbeats run on other threads meanwhile.
 *
 * <p>A task already waiting in the lane is not queued twice: a lane stuck for a minute holds one
 * pending sweep, not sixty.
 */
final class QueueLane implements Executor {

    private static final Log logger = LogFactory.getLog(QueueLane.class);

    private final String name;
    private final Executor threads;
    private final Set<Runnable> pending = new LinkedHashSet<>();
    private boolean draining;

    QueueLane(String name, Executor threads) {
        this.name = name;
        this.threads = threads;
    }

    @Override
    public void execute(Runnable task) {
        synchronized (this) {
            if (!pending.add(task) || draining) {
                return;
            }
            draining = true;
        }
        try {
            threads.execute(this::drain);
        }
        catch (RejectedExecutionException stopping) {
            synchronized (this) {
                draining = false;
                pending.clear();
            }
        }
    }

    private void drain() {
        while (true) {
            Runnable next;
            synchronized (this) {
                var it = pending.iterator();
                if (!it.hasNext()) {
                    draining = false;
                    return;
                }
                next = it.next();
                it.remove();
            }
            try {
                next.run();
            }
            catch (RuntimeException ex) {
                logger.warn("Watchdog task of " + name + " failed: " + ex.getMessage(), ex);
            }
        }
    }
}
