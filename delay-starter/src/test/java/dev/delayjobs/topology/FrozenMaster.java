package dev.delayjobs.topology;

import static org.assertj.core.api.Assertions.assertThat;

import dev.delayjobs.embeddedredis.RedisServerProcess;

/**
 * A master stopped with SIGSTOP while a check runs, and resumed after it whatever happens; the
 * window is flagged, so that handlers can record what they did while the master hung.
 */
final class FrozenMaster {

    private static volatile boolean frozen;

    private FrozenMaster() {
    }

    /** Whether a master is frozen now. */
    static boolean now() {
        return frozen;
    }

    /** Runs {@code check} while {@code master} hangs, and asserts that it hung until the check ended. */
    static void during(RedisServerProcess master, Runnable check) {
        master.pause();
        frozen = true;
        try {
            check.run();
            assertThat(master.isRunning()).as("the master was still frozen").isFalse();
        }
        finally {
            frozen = false;
            master.resume();
        }
    }
}
