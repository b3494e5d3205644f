package dev.delayjobs.fault;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The randomized fault soak ({@link FaultSoak}) in its short form, with a fixed seed: 60 s of load
 * and faults, then every rule checked. The long runs (10 minutes, other seeds) are run by hand;
 * see docs/reliability.md.
 */
@Tag("slow")
@Tag("soak")
@Timeout(value = 20, unit = TimeUnit.MINUTES)
class FaultSoakTest {

    @Test
    void sixtySecondsOfLoadAndFaultsBreakNoRule() throws Exception {
        FaultSoak.Result result = new FaultSoak(Duration.ofSeconds(Long.getLong("soak.seconds", 60)),
                Long.getLong("soak.seed", 20261124L)).run();
        FaultReport.record("randomized fault soak", result.figures());
        assertThat(result.violations()).as(result.figures()).isEmpty();
    }
}
