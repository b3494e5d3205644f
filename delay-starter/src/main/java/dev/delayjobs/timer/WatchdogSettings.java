package dev.delayjobs.timer;

import java.time.Duration;

/**
 * How often the watchdog works.
 *
 * @param sweepInterval period of the sweep: transfer regardless of messages, recover stopped instances
 * @param heartbeatInterval period of the instance heartbeat
 * @param heartbeatLease how long an instance that stopped heartbeating keeps its jobs before others recover them
 * @param transferBatchSize jobs moved per transfer script call
 * @param deadRetention how long dead jobs are kept
 */
public record WatchdogSettings(Duration sweepInterval, Duration heartbeatInterval, Duration heartbeatLease,
        int transferBatchSize, Duration deadRetention) {
}
