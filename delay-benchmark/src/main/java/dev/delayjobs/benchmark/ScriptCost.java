package dev.delayjobs.benchmark;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import dev.delayjobs.embeddedredis.RedisServerProcess;
import dev.delayjobs.queue.Partition;
import dev.delayjobs.queue.QueueName;
import dev.delayjobs.redis.NewJob;
import dev.delayjobs.redis.RedisJobStore;
import dev.delayjobs.redis.RedisPartitionStore;
import dev.delayjobs.redis.Transfer;
import dev.delayjobs.store.Claim;
import dev.delayjobs.store.ClaimRequest;
import dev.delayjobs.store.StoredJob;

/**
 * Redis time per job of each script on the delivery path, one script at a time on a quiet Redis:
 * {@code cost.jobs} jobs (100,000) with 100-byte payloads go through publish (batches of 250, due
 * 100 ms ahead), transfer, claim (100 a call, 8 started, the rest prefetched), start marks (50 a
 * call) and ack (40 a call, in the order claimed), each step over all jobs before the next, with Redisson's default
 * settings. Per step: {@code EVALSHA} µs per job ({@code INFO commandstats}, the scripts' wall time
 * in Redis) and Redis CPU per job ({@code INFO cpu}). No other client runs, so each step's figures
 * are its script's alone: what the throughput scenario mixes, taken apart. {@code cost.runs} runs (3).
 * Run with {@code java -cp delay-benchmark/target/delay-benchmark.jar
 * -Dloader.main=dev.delayjobs.benchmark.ScriptCost org.springframework.boot.loader.launch.PropertiesLauncher}.
 */
public final class ScriptCost {

    private static final String INSTANCE = "cost-consumer";

    /** Jobs a call of each step: -Dcost.publish, -Dcost.claim, -Dcost.start, -Dcost.ack. */
    private static final int PUBLISH = Integer.getInteger("cost.publish", 250);
    private static final int CLAIM = Integer.getInteger("cost.claim", 100);
    private static final int START = Integer.getInteger("cost.start", 50);
    private static final int ACK = Integer.getInteger("cost.ack", 40);

    private ScriptCost() {
    }

    public static void main(String[] args) throws Exception {
        int jobs = Integer.getInteger("cost.jobs", 100_000);
        int runs = Integer.getInteger("cost.runs", 3);
        try (RedisServerProcess redis = RedisServerProcess.builder().binary(RedisServerProcess.onPath().orElse(null)).start();
                RedisProbe probe = new RedisProbe(redis.host(), redis.port())) {
            Config config = new Config();
            config.useSingleServer().setAddress("redis://" + redis.host() + ":" + redis.port());
            RedissonClient redisson = Redisson.create(config);
            try {
                System.out.println("# script cost: " + jobs + " jobs a run, each step alone; Redis " + probe.version()
                        + " (" + redis.binary() + "), Java " + System.getProperty("java.version"));
                System.out.println("| run | step | jobs a call | calls | script µs/job | Redis CPU µs/job | commands in it, µs/job |");
                System.out.println("|---|---|--:|--:|--:|--:|---|");
                run(redisson, probe, 0, jobs / 5); // warm-up, unreported
                for (int run = 1; run <= runs; run++) {
                    run(redisson, probe, run, jobs);
                }
            }
            finally {
                redisson.shutdown();
            }
        }
        System.exit(0);
    }

    private static void run(RedissonClient redisson, RedisProbe probe, int run, int jobs) throws InterruptedException {
        probe.flushAll();
        Partition queue = QueueName.of("cost").whole();
        RedisJobStore store = new RedisJobStore(redisson, "delay");
        RedisPartitionStore partition = store.partition(queue);
        String payload = "{\"order\":\"" + "x".repeat(80) + "\"}";

        Step step = new Step(probe, run, jobs);
        for (int from = 0; from < jobs; from += PUBLISH) {
            List<NewJob> batch = new ArrayList<>(PUBLISH);
            for (int i = from; i < Math.min(jobs, from + PUBLISH); i++) {
                batch.add(new NewJob(UUID.randomUUID().toString(), true, 100, false, payload, true));
            }
            store.publish(queue, batch);
            step.call();
        }
        step.report("publish");
        Thread.sleep(200); // every job due
        step = new Step(probe, run, jobs);
        int moved = 0;
        while (moved < jobs) {
            Transfer t = store.transfer(queue, 1000);
            moved += t.moved();
            step.call();
            if (t.moved() == 0) {
                throw new IllegalStateException("transfer moved " + moved + " of " + jobs);
            }
        }
        step.report("transfer");
        step = new Step(probe, run, jobs);
        List<StoredJob> claimed = new ArrayList<>(jobs);
        List<StoredJob> prefetched = new ArrayList<>(jobs);
        while (claimed.size() < jobs) {
            Claim claim = partition.claim(new ClaimRequest(INSTANCE, CLAIM, Math.min(8, CLAIM), Duration.ofSeconds(60), 0, null, 0, 1));
            step.call();
            if (claim.jobs().isEmpty()) {
                throw new IllegalStateException("claimed " + claimed.size() + " of " + jobs);
            }
            claimed.addAll(claim.jobs());
            prefetched.addAll(claim.jobs().subList(Math.min(Math.min(8, CLAIM), claim.jobs().size()), claim.jobs().size()));
        }
        step.report("claim");
        step = new Step(probe, run, prefetched.size());
        for (int from = 0; from < prefetched.size(); from += START) {
            partition.markStartedAsync(prefetched.subList(from, Math.min(prefetched.size(), from + START))).join();
            step.call();
        }
        step.report("start");
        step = new Step(probe, run, jobs);
        for (int from = 0; from < claimed.size(); from += ACK) {
            partition.ack(INSTANCE, claimed.subList(from, Math.min(claimed.size(), from + ACK)));
            step.call();
        }
        step.report("ack");
    }

    /** One step's calls and the server's counters around them. */
    private static final class Step {

        private final RedisProbe probe;
        private final int run;
        private final int jobs;
        private final double cpuBefore;
        private final Map<String, ScriptTimes.Time> commandsBefore;
        private int calls;

        Step(RedisProbe probe, int run, int jobs) {
            this.probe = probe;
            this.run = run;
            this.jobs = jobs;
            this.commandsBefore = probe.commandStats();
            this.cpuBefore = probe.cpuSeconds();
        }

        void call() {
            calls++;
        }

        void report(String name) {
            double cpu = probe.cpuSeconds() - cpuBefore;
            Map<String, ScriptTimes.Time> commands = RedisProbe.since(commandsBefore, probe.commandStats());
            if (run == 0) {
                return;
            }
            // the scripts' time, and the commands they ran by µs per job (the rest of their time is Lua)
            long scriptUsec = 0;
            long innerUsec = 0;
            StringBuilder inner = new StringBuilder();
            for (Map.Entry<String, ScriptTimes.Time> entry : commands.entrySet()) {
                String command = entry.getKey();
                long usec = entry.getValue().usec();
                if (command.startsWith("eval")) {
                    scriptUsec += usec;
                    continue;
                }
                if (command.equals("info") || command.startsWith("slowlog") || command.startsWith("config")
                        || command.startsWith("flushall") || command.startsWith("script")) {
                    continue;
                }
                innerUsec += usec;
                if (usec / (double) jobs >= 0.05) {
                    inner.append(String.format(" %s %.2f", command, usec / (double) jobs));
                }
            }
            System.out.printf("| %d | %s | %.0f | %,d | %.2f | %.2f | %.2f:%s |%n", run, name, jobs / (double) calls, calls,
                    scriptUsec / (double) jobs, cpu * 1e6 / jobs, innerUsec / (double) jobs, inner);
        }
    }
}
