package dev.delayjobs.benchmark;

import java.util.Arrays;
import java.util.Locale;
import java.util.Random;

import dev.delayjobs.listener.ListenerContainer;

/**
 * The scenarios of a run, each for every engine in turn on the same Redis (flushed between
 * phases): publish speed and memory, a steady rate, rising rates, far-future backlogs. Only the
 * engine under test consumes.
 */
final class ScenarioRuns {

    private final BenchmarkOptions options;
    private final RedisProbe probe;
    private final StarterEngine starter;
    private final AnchorEngine anchor;
    private final ListenerContainer starterContainer;
    private final BenchmarkReport report;

    ScenarioRuns(BenchmarkOptions options, RedisProbe probe, StarterEngine starter, AnchorEngine anchor,
            ListenerContainer starterContainer, BenchmarkReport report) {
        this.options = options;
        this.probe = probe;
        this.starter = starter;
        this.anchor = anchor;
        this.starterContainer = starterContainer;
        this.report = report;
    }

    void run() throws Exception {
        for (String engineName : options.engines) {
            warmUp(engineName.equals("anchor") ? anchor : starter);
        }
        for (String scenario : options.scenarios) {
            for (String engineName : options.engines) {
                Engine engine = engineName.equals("anchor") ? anchor : starter;
                // only the engine under test consumes: the other one's idle calls stay out of the counts
                if (engine == starter) {
                    starterContainer.start();
                }
                else {
                    starterContainer.stop();
                }
                switch (scenario) {
                    case "publish" -> publish(engine);
                    case "rate" -> rate(engine);
                    case "throughput" -> throughput(engine);
                    case "backlog" -> backlog(engine);
                    default -> throw new IllegalArgumentException("unknown scenario " + scenario);
                }
            }
        }
    }

    /**
     * Runs both paths (single and batch publish, delivery) until the JIT has compiled them, then the
     * publish scenario's own shapes (single calls from 8 threads, batches from 4, as many jobs as it
     * publishes, due in hours and flushed): without them the first engine's single-call phase was
     * mostly compilation (2 s of it, with JIT threads at 38 µs of CPU a job, while the engine measured
     * after it found the shared Redisson and Netty code compiled). Nothing is reported.
     */
    private void warmUp(Engine engine) throws Exception {
        if (engine == starter) {
            starterContainer.start();
        }
        else {
            starterContainer.stop();
        }
        probe.flushAll();
        Random random = new Random(options.seed);
        int rounds = 5;
        int perRound = 2000;
        Lateness.reset(rounds * perRound * 2);
        for (int round = 0; round < rounds; round++) {
            long[] delays = new long[perRound];
            for (int i = 0; i < perRound; i++) {
                delays[i] = random.nextInt(50);
                engine.publishOne(delays[i]);
            }
            engine.publishMany(delays);
        }
        boolean all = Lateness.await(rounds * perRound * 2, 30_000);
        long[] far = Workload.farFuture(random, options.publishJobs);
        Workload.singles(engine, far, 8);
        long[] farBatches = Workload.farFuture(random, options.publishJobs * 4);
        Workload.batches(engine, farBatches, 4);
        System.out.println("  warm-up of " + engine.name() + (all ? " done" : " timed out: " + Lateness.count() + " delivered"));
        probe.flushAll();
    }

    /** Publish speed (single calls from 8 threads, then the batch API from 4) and Redis memory per pending job. */
    private void publish(Engine engine) throws Exception {
        probe.flushAll();
        Pace.sleepMs(200);
        long memoryBefore = probe.usedMemory();
        int single = options.publishJobs;
        Random random = new Random(options.seed);
        long[] delays = publishDelays(random, single);
        Phase phase = Phase.start(probe);
        long t0 = System.nanoTime();
        Workload.singles(engine, delays, 8);
        double seconds = (System.nanoTime() - t0) / 1e9;
        report.add(phase.finish("publish, single calls (8 threads)", engine.name(), single, single / seconds, null, ""));

        int batch = options.publishJobs * 4;
        long[] batchDelays = publishDelays(random, batch);
        phase = Phase.start(probe);
        t0 = System.nanoTime();
        Workload.batches(engine, batchDelays, 4);
        seconds = (System.nanoTime() - t0) / 1e9;
        Pace.sleepMs(200);
        double bytes = (probe.usedMemory() - memoryBefore) / (double) (single + batch);
        report.add(phase.finish("publish, " + (engine == starter ? "batch API" : "offerAsync pipelined") + " (4 threads x 1000)",
                engine.name(), batch, batch / seconds, null, "memory: " + (single + batch) + " pending jobs")
                .withBytes(bytes));
    }

    /** A steady 1,000 jobs/s (configurable), single publish calls, delays 100..1100 ms. */
    private void rate(Engine engine) {
        probe.flushAll();
        int rate = options.rate;
        int total = rate * options.rateSeconds;
        long[] delays = Workload.delays(options.seed, total, 100);
        Lateness.reset(total);
        Phase phase = Phase.start(probe);
        long start = System.nanoTime();
        int sent = 0;
        while (sent < total) {
            int due = Pace.dueBy(start, rate, total);
            while (sent < due) {
                engine.publishOne(delays[sent++]);
            }
            Pace.sleepMs(1);
        }
        boolean all = Lateness.await(total, 30_000);
        double seconds = (Lateness.lastAt() - start) / 1e9 - 0.1;
        report.add(phase.finish(rate + " jobs/s for " + options.rateSeconds + " s, single publish", engine.name(), total,
                Lateness.count() / seconds, Lateness.summary(), all ? "" : "only " + Lateness.count() + " delivered in 30 s"));
    }

    /** Rising rates, published in batches every 10 ms, delays 200..1200 ms; stops at the first rate an engine cannot hold. */
    private void throughput(Engine engine) {
        for (int rate : options.rates) {
            probe.flushAll();
            int total = rate * options.stepSeconds;
            long[] delays = Workload.delays(options.seed + rate, total, 200);
            Lateness.reset(total);
            Phase phase = Phase.start(probe);
            long start = System.nanoTime();
            int sent = 0;
            while (sent < total) {
                int due = Pace.dueBy(start, rate, total);
                if (due > sent) {
                    engine.publishMany(Arrays.copyOfRange(delays, sent, due));
                    sent = due;
                }
                Pace.sleepMs(10);
            }
            double publishSeconds = (System.nanoTime() - start) / 1e9;
            boolean all = Lateness.await(total, 30_000);
            double seconds = (Lateness.lastAt() - start) / 1e9 - 0.2;
            Lateness.Summary lateness = Lateness.summary();
            String note = String.format(Locale.ROOT, "published in %.1f s", publishSeconds)
                    + (all ? "" : "; only " + Lateness.count() + " delivered 30 s after the last publish");
            report.add(phase.finish("throughput: " + rate + " jobs/s offered (batches every 10 ms)", engine.name(), total,
                    Lateness.count() / seconds, lateness, note));
            if (engine == anchor && !all) {
                anchor.restartTransfer();
            }
            if (!all || lateness.p99() > 1000) {
                System.out.println("  " + engine.name() + " cannot hold " + rate + " jobs/s; higher rates skipped");
                break;
            }
        }
    }

    /**
     * Far-future jobs pending ahead (10k, then 1M): the cost of a single publish, then 10k jobs that
     * become due within one second (due 1..2 s after publishing), all delivered?
     */
    private void backlog(Engine engine) throws Exception {
        for (int pending : options.backlogs) {
            probe.flushAll();
            Pace.sleepMs(200);
            long memoryBefore = probe.usedMemory();
            Random random = new Random(options.seed);
            long[] far = Workload.farFuture(random, pending);
            long t0 = System.nanoTime();
            Workload.batches(engine, far, 2);
            System.out.printf(Locale.ROOT, "  %s: %,d far-future jobs preloaded in %.1f s%n", engine.name(), pending,
                    (System.nanoTime() - t0) / 1e9);
            Pace.sleepMs(200);
            double bytes = (probe.usedMemory() - memoryBefore) / (double) pending;
            String label = pending >= 1_000_000 ? (pending / 1_000_000) + "M" : (pending / 1000) + "k";

            int single = options.publishJobs;
            long[] more = Workload.farFuture(random, single);
            Phase phase = Phase.start(probe);
            t0 = System.nanoTime();
            Workload.singles(engine, more, 8);
            double seconds = (System.nanoTime() - t0) / 1e9;
            report.add(phase.finish("backlog " + label + ": single publish (8 threads)", engine.name(), single, single / seconds,
                    null, "bytes/job: memory of the " + label + " preloaded jobs").withBytes(bytes));

            int due = options.dueJobs;
            long[] soon = new long[due];
            for (int i = 0; i < due; i++) {
                soon[i] = 1000 + random.nextInt(1001);
            }
            Lateness.reset(due);
            phase = Phase.start(probe);
            long start = System.nanoTime();
            for (int i = 0; i < due; i += 500) {
                engine.publishMany(Arrays.copyOfRange(soon, i, Math.min(due, i + 500)));
            }
            boolean all = Lateness.await(due, 2000 + options.backlogWaitSeconds * 1000L);
            seconds = (Lateness.lastAt() - start) / 1e9 - 1.0;
            report.add(phase.finish("backlog " + label + ": " + due + " jobs due within 1 s", engine.name(), due,
                    Lateness.count() / seconds, Lateness.summary(),
                    all ? "" : "only " + Lateness.count() + " delivered within " + options.backlogWaitSeconds + " s of due"));
            if (engine == anchor && !all) {
                anchor.restartTransfer();
            }
        }
        probe.flushAll();
    }

    /**
     * The publish scenario's delays: 1 to 2 h at random ({@code --publish-delays=random}, jobs due in
     * no order), or 1 h for every job ({@code fixed}: due in publish order, as "close the order in
     * 30 minutes" publishes).
     */
    private long[] publishDelays(Random random, int n) {
        if (options.publishDelays.equals("fixed")) {
            long[] delays = new long[n];
            Arrays.fill(delays, 3_600_000L);
            return delays;
        }
        return Workload.farFuture(random, n);
    }
}
