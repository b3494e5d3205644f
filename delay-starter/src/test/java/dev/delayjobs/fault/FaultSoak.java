package dev.delayjobs.fault;

import static dev.delayjobs.test.TestPartitions.whole;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;

import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;
import org.springframework.context.ConfigurableApplicationContext;

import dev.delayjobs.DelayPublisher;
import dev.delayjobs.JobInfo;
import dev.delayjobs.JobState;
import dev.delayjobs.PublishRequest;
import dev.delayjobs.embeddedredis.RedisServerProcess;
import dev.delayjobs.fault.ConsumerMain.Work;
import dev.delayjobs.fault.HandledLog.Handled;
import dev.delayjobs.redis.QueueStats;
import dev.delayjobs.redis.RedisJobStore;
import dev.delayjobs.schedule.DelaySchedules;
import dev.delayjobs.test.TestApps;
import dev.delayjobs.test.TestRedis;

/**
 * The randomized fault soak: consumer JVMs and a producer work on one queue through a TCP proxy
 * while a seeded schedule of faults hits them (kill -9 of a consumer, Redis frozen, Redis killed
 * and restarted on its AOF, every client connection killed, latency, dropped connections), all
 * with Redisson's default timeouts and retries. After a quiet period it checks what users rely on
 * against the handlers' logs and Redis itself, prints one line of figures, and names every job
 * that broke a rule. The queue has {@code group-concurrency=1}: its grouped jobs (bursts of a few
 * jobs of one group due at once) must never run two at a time, which the handlers' own start and
 * end lines ({@link RunLog}) show; its ungrouped jobs are in the default group, which has no limit.
 *
 * <pre>
 * ./mvnw -B -q -pl delay-starter -am test -Dtest=FaultSoakTest -Dsurefire.failIfNoSpecifiedTests=false \
 *     -Dsoak.seconds=600 -Dsoak.seed=1
 * </pre>
 * ({@link FaultSoakTest} runs it; {@link #main} takes the same two arguments on a test class path).
 * See docs/reliability.md, "Randomized fault soak".
 */
public final class FaultSoak {

    static final String QUEUE = "soak";
    private static final long EARLY_TOLERANCE_MS = 5;

    enum Fault { KILL, STALL, CLIENT_KILL, RESTART, LATENCY, DROP }

    /** What a soak found: the figures line and the broken rules (empty when none). */
    record Result(String figures, List<String> violations) {
    }

    private final Duration duration;
    private final long seed;
    private final Random random;
    private final Map<Fault, Integer> faults = java.util.Collections.synchronizedMap(new EnumMap<>(Fault.class));
    private final List<long[]> faultWindows = new java.util.concurrent.CopyOnWriteArrayList<>();
    private volatile long lastCrashCheck = System.currentTimeMillis();
    /** The most jobs seen waiting in consumers' buffers at once (sampled every half second): faults met some. */
    private long mostPrefetched;
    private int crashes;
    private final List<Fault> deck = new ArrayList<>();
    /** Every consumer process started, for the time each died (a run it never ended lasted until then). */
    private final List<ConsumerProcess> started = new java.util.concurrent.CopyOnWriteArrayList<>();

    FaultSoak(Duration duration, long seed) {
        this.duration = duration;
        this.seed = seed;
        this.random = new Random(seed);
    }

    public static void main(String[] args) throws Exception {
        Duration duration = Duration.ofSeconds(args.length > 0 ? Long.parseLong(args[0]) : 600);
        long seed = args.length > 1 ? Long.parseLong(args[1]) : System.nanoTime();
        Result result = new FaultSoak(duration, seed).run();
        System.out.println(result.figures());
        result.violations().forEach(v -> System.out.println("VIOLATION " + v));
        System.exit(result.violations().isEmpty() ? 0 : 1);
    }

    Result run() throws Exception {
        String prefix = TestRedis.uniquePrefix();
        String[] consumerSettings = { "delay.heartbeat-interval=1s", "delay.heartbeat-lease=5s",
                "delay.sweep-interval=500ms", "delay.consumer.handler-timeout=2s", "delay.consumer.max-attempts=3",
                "delay.consumer.backoff.initial=200ms", "fault.halt-on=poison-",
                // a fixed buffer: at the soak's few dozen jobs a second the pace would keep none, and
                // faults must also meet jobs that wait in a buffer
                "delay.consumer.prefetch=4",
                // grouped jobs one at a time per group (the default group, ungrouped jobs, has no limit)
                "delay.queues." + QUEUE + ".group-concurrency=1", "fault.log-runs=true" };
        try (RedisServerProcess redis = RedisServerProcess.start("--appendonly", "yes", "--appendfsync", "always");
                TcpProxy proxy = new TcpProxy(redis.port())) {
            List<ConsumerProcess> consumers = new ArrayList<>();
            // a consumer restarted under the same name appends to the same file: each file is read once
            Set<Path> logs = new java.util.LinkedHashSet<>();
            for (int i = 0; i < 3; i++) {
                consumers.add(startConsumer("c" + i, proxy, prefix, logs, consumerSettings));
            }
            consumers.forEach(c -> c.awaitReady(Duration.ofSeconds(60)));
            Producer producer;
            SoakSchedules schedules;
            List<ConsumerProcess> shared = java.util.Collections.synchronizedList(consumers);
            try (ConfigurableApplicationContext app = TestApps.run("127.0.0.1", proxy.port(), prefix, List.of())) {
                producer = new Producer(app.getBean(DelayPublisher.class), new Random(seed + 1));
                schedules = SoakSchedules.create(app.getBean(DelaySchedules.class));
                long end = System.currentTimeMillis() + duration.toMillis();
                // faults on a thread of their own, so that the load goes on through them (a publish
                // sent into a frozen Redis is what Redisson resends)
                Thread faulting = new Thread(() -> {
                    long nextFault = System.currentTimeMillis() + 5000;
                    int generation = 0;
                    try {
                        while (System.currentTimeMillis() < end) {
                            restartCrashed(shared, proxy, prefix, logs, consumerSettings);
                            if (System.currentTimeMillis() >= nextFault) {
                                generation = fault(redis, proxy, shared, prefix, logs, consumerSettings, generation);
                                nextFault = System.currentTimeMillis() + faultGap();
                            }
                            Thread.sleep(200);
                        }
                    }
                    catch (InterruptedException ex) {
                        Thread.currentThread().interrupt();
                    }
                }, "soak-faults");
                faulting.start();
                RedisJobStore observer = app.getBean(RedisJobStore.class);
                for (int step = 0; System.currentTimeMillis() < end; step++) {
                    producer.step();
                    if (step % 25 == 0) {
                        observePrefetched(observer);
                    }
                    Thread.sleep(20);
                }
                faulting.join();
                proxy.latency(0);
                schedules.end();
                // the quiet period: no load, no fault; everything due (at most 8 s ahead) gets handled
                long quietUntil = System.currentTimeMillis() + 120_000;
                RedisJobStore direct = store(redis, prefix);
                while (System.currentTimeMillis() < quietUntil) {
                    restartCrashed(shared, proxy, prefix, logs, consumerSettings);
                    QueueStats stats = direct.stats(whole(QUEUE));
                    if (stats.delayed() + stats.ready() + stats.running() == 0
                            && stats.instances().stream().allMatch(i -> i.held() == 0)) {
                        break;
                    }
                    Thread.sleep(500);
                }
                Thread.sleep(3000);
            }
            try {
                return check(redis, prefix, producer, schedules, HandledLog.read(logs),
                        RunLog.read(logs.stream().map(log -> Path.of(log + ".runs")).toList()));
            }
            finally {
                consumers.forEach(ConsumerProcess::close);
            }
        }
    }

    private void observePrefetched(RedisJobStore store) {
        try {
            long prefetched = store.stats(whole(QUEUE)).instances().stream().mapToLong(QueueStats.ConsumerInstance::prefetched).sum();
            mostPrefetched = Math.max(mostPrefetched, prefetched);
        }
        catch (RuntimeException ex) {
            // Redis down or frozen by a fault: the next sample
        }
    }

    /** A fault every 6 to 16 s; every 3 to 7 s in a run of two minutes or less. */
    private long faultGap() {
        return duration.toSeconds() <= 120 ? 3000 + random.nextInt(4000) : 6000 + random.nextInt(10_000);
    }

    private ConsumerProcess startConsumer(String name, TcpProxy proxy, String prefix, Set<Path> logs,
            String... settings) {
        ConsumerProcess consumer = ConsumerProcess.start(name, proxy.port(), prefix, QUEUE, 4, settings);
        logs.add(consumer.log());
        started.add(consumer);
        return consumer;
    }

    /** A consumer that died by itself (a poison job halts its JVM) comes back under the same id. */
    private synchronized void restartCrashed(List<ConsumerProcess> consumers, TcpProxy proxy, String prefix,
            Set<Path> logs, String... settings) {
        for (int i = 0; i < consumers.size(); i++) {
            if (!consumers.get(i).isAlive()) {
                // a crash is a fault too: jobs it held run again elsewhere
                faultWindows.add(new long[] { lastCrashCheck, System.currentTimeMillis() });
                crashes++;
                String name = consumers.get(i).name();
                consumers.get(i).close();
                consumers.set(i, startConsumer(name + "+", proxy, prefix, logs, settings));
            }
        }
        lastCrashCheck = System.currentTimeMillis();
    }

    private synchronized int fault(RedisServerProcess redis, TcpProxy proxy, List<ConsumerProcess> consumers, String prefix,
            Set<Path> logs, String[] settings, int generation) throws InterruptedException {
        if (deck.isEmpty()) {
            // every kind once per round, in a seeded order: a short run meets them all too
            deck.addAll(List.of(Fault.values()));
            java.util.Collections.shuffle(deck, random);
        }
        Fault fault = deck.remove(0);
        faults.merge(fault, 1, Integer::sum);
        long start = System.currentTimeMillis();
        switch (fault) {
            case KILL -> {
                int victim = random.nextInt(consumers.size());
                ConsumerProcess killed = consumers.get(victim);
                killed.kill();
                killed.close();
                // half the time the same instance id comes back (a StatefulSet pod), else a new one
                String name = random.nextBoolean() ? killed.name() : "c" + victim + "-g" + (++generation);
                consumers.set(victim, startConsumer(name, proxy, prefix, logs, settings));
            }
            case STALL -> {
                redis.pause();
                Thread.sleep(1000 + random.nextInt(7000));
                redis.resume();
            }
            case CLIENT_KILL -> RedisCli.call(redis.port(), "CLIENT", "KILL", "TYPE", "normal");
            case RESTART -> {
                redis.kill();
                Thread.sleep(500 + random.nextInt(1500));
                redis.restart();
            }
            case LATENCY -> {
                proxy.latency(50 + random.nextInt(300));
                Thread.sleep(3000 + random.nextInt(3000));
                proxy.latency(0);
            }
            case DROP -> proxy.dropAll();
        }
        faultWindows.add(new long[] { start, System.currentTimeMillis() });
        return generation;
    }

    private RedisJobStore store(RedisServerProcess redis, String prefix) {
        return new RedisJobStore(client(redis), prefix);
    }

    private RedissonClient client(RedisServerProcess redis) {
        Config config = new Config();
        config.useSingleServer().setAddress(redis.url());
        return Redisson.create(config);
    }

    private Result check(RedisServerProcess redis, String prefix, Producer producer, SoakSchedules schedules,
            List<Handled> handled, List<RunLog.Run> calls) {
        RedissonClient redisson = client(redis);
        try {
            RedisJobStore store = new RedisJobStore(redisson, prefix);
            List<String> violations = new ArrayList<>();
            Map<String, List<Handled>> byId = new HashMap<>();
            handled.forEach(h -> byId.computeIfAbsent(h.id(), id -> new ArrayList<>()).add(h));
            int lost = 0;
            for (String id : producer.accepted) {
                if (producer.cancelled.contains(id)) {
                    continue;
                }
                if (!byId.containsKey(id) && !isDead(store, id)) {
                    lost++;
                    violations.add("LOST " + id + ": published, not cancelled, never handled, not dead ("
                            + store.find(whole(QUEUE), id).map(JobInfo::state).orElse(null) + ")");
                }
            }
            for (Map.Entry<String, Long> keyed : producer.keyedPublishedAt.entrySet()) {
                List<Handled> runs = byId.getOrDefault(keyed.getKey(), List.of());
                // a run that started after the last publish: one that met its job waiting is that job's run,
                // one that met it held (RUNNING or PREFETCHED) waited as its successor (guarantees.md,
                // duplicate keys), even when the held run's handler had returned and only its ack was
                // still on its way
                boolean after = runs.stream().anyMatch(h -> h.startedAt() >= keyed.getValue());
                if (!after && !isDead(store, keyed.getKey()) && !producer.cancelled.contains(keyed.getKey())) {
                    lost++;
                    violations.add("LOST " + keyed.getKey() + ": keyed, no run started after its last publish at "
                            + keyed.getValue());
                }
            }
            for (String id : producer.cancelled) {
                // a run before the cancel is no violation: the job was waiting again when cancelled
                // (its run failed and waited for a retry, or its consumer died before the ack)
                long cancelledAt = producer.cancelledAt.get(id);
                if (byId.getOrDefault(id, List.of()).stream().anyMatch(h -> h.startedAt() >= cancelledAt)) {
                    violations.add("CANCELLED-RAN " + id + ": cancel answered true at " + cancelledAt + ", yet it ran after");
                }
            }
            int early = 0;
            for (Handled h : handled) {
                if (h.startedAt() < h.dueAt() - EARLY_TOLERANCE_MS) {
                    early++;
                    violations.add("EARLY " + h.id() + ": started " + (h.dueAt() - h.startedAt()) + " ms before its due time");
                }
            }
            QueueStats stats = store.stats(whole(QUEUE));
            int stranded = (int) (stats.running() + stats.instances().stream().mapToLong(QueueStats.ConsumerInstance::held).sum());
            if (stranded > 0) {
                violations.add("STRANDED " + stats.running() + " running, " + stats.instances() + " after the quiet period");
            }
            if (stats.delayed() + stats.ready() > 0) {
                violations.add("LEFT " + stats.delayed() + " delayed and " + stats.ready() + " ready after the quiet period");
            }
            Set<String> records = redisson.<String, String>getMap(prefix + ":{" + QUEUE + "}:jobs", StringCodec.INSTANCE).readAllKeySet();
            Set<String> successors = redisson.<String, String>getMap(prefix + ":{" + QUEUE + "}:successors", StringCodec.INSTANCE)
                    .readAllKeySet();
            if (!successors.isEmpty()) {
                violations.add("STRUCTURE successors still waiting after the quiet period: " + first(successors));
            }
            Set<String> dead = new HashSet<>(redisson.<String>getScoredSortedSet(prefix + ":{" + QUEUE + "}:dead", StringCodec.INSTANCE).readAll());
            // a claim entry never outlives its job, and none says held once nobody holds anything
            Map<String, String> claims = redisson.<String, String>getMap(prefix + ":{" + QUEUE + "}:claims", StringCodec.INSTANCE)
                    .readAllMap();
            Set<String> orphans = new HashSet<>(claims.keySet());
            orphans.removeAll(records);
            if (!orphans.isEmpty()) {
                violations.add("STRUCTURE claim entries without a job after the quiet period: " + first(orphans));
            }
            claims.forEach((id, entry) -> {
                String[] fields = entry.split(",");
                if (fields.length < 2 || Long.parseLong(fields[1], 36) % 4 != 0) {
                    violations.add("STRANDED claim entry " + id + "=" + entry + " says held after the quiet period");
                }
            });
            if (!records.equals(dead)) {
                Set<String> extra = new HashSet<>(records);
                extra.removeAll(dead);
                violations.add("STRUCTURE records that are not dead after the quiet period: " + first(extra));
            }
            long deadCounter = Long.parseLong(redisson.<String, String>getMap(prefix + ":{" + QUEUE + "}:stats",
                    StringCodec.INSTANCE).getOrDefault("dead", "0"));
            if (deadCounter < dead.size()) {
                violations.add("COUNTERS dead counter " + deadCounter + " below the dead set's " + dead.size());
            }
            violations.addAll(schedules.check(handled, id -> isDead(store, id)));
            // group-concurrency=1: no two runs of one group at once; a run cut by its JVM's death
            // lasted until then, and its group stays held until recovery hands the job back
            Map<Long, Long> diedAt = new HashMap<>();
            started.forEach(c -> diedAt.put(c.pid(), c.diedAt()));
            List<String> overlaps = RunLog.overlaps(calls, producer.groupOf::get, pid -> diedAt.getOrDefault(pid, -1L));
            violations.addAll(overlaps);
            Map<String, String> held = redisson.<String, String>getMap(prefix + ":{" + QUEUE + "}:group-held",
                    StringCodec.INSTANCE).readAllMap();
            held.remove(""); // the rotation's turn counter
            if (!held.isEmpty()) {
                violations.add("STRANDED groups still counted as held after the quiet period: " + held);
            }
            Set<String> groupFields = redisson.<String, String>getMap(prefix + ":{" + QUEUE + "}:groups", StringCodec.INSTANCE)
                    .readAllKeySet();
            groupFields.removeAll(records);
            if (!groupFields.isEmpty()) {
                violations.add("STRUCTURE group fields without a job after the quiet period: " + first(groupFields));
            }
            int duplicates = 0;
            int unexplained = 0;
            for (Map.Entry<String, List<Handled>> e : byId.entrySet()) {
                List<Handled> runs = e.getValue();
                // a key published again after its job was done is a new job under the same id, not a duplicate
                if (runs.size() < 2 || producer.keyedPublishedAt.containsKey(e.getKey())) {
                    continue;
                }
                duplicates++;
                runs.sort((a, b) -> Long.compare(a.startedAt(), b.startedAt()));
                Handled firstRun = runs.get(0);
                Handled secondRun = runs.get(1);
                boolean explained = faultWindows.stream()
                        .anyMatch(w -> w[1] >= firstRun.startedAt() - 1000 && w[0] <= secondRun.startedAt());
                if (!explained) {
                    unexplained++;
                    violations.add("DUPLICATE " + e.getKey() + ": handled at " + firstRun.startedAt() + " and "
                            + secondRun.startedAt() + " with no fault in between");
                }
            }
            String figures = "soak seed=" + seed + " seconds=" + duration.toSeconds() + " jobs=" + producer.accepted.size()
                    + " keyed=" + producer.keyedPublishedAt.size() + " keyedQueued=" + producer.keyedQueued
                    + " cancelled=" + producer.cancelled.size()
                    + " ambiguous=" + producer.ambiguous + " handled=" + byId.size() + " dead=" + dead.size()
                    + " faults=" + new TreeMap<>(faults) + " crashes=" + crashes + " lost=" + lost + " stranded=" + stranded + " early=" + early
                    + " duplicates=" + duplicates + " unexplained=" + unexplained + " mostPrefetched=" + mostPrefetched
                    + " grouped=" + producer.groupOf.size() + " groupedRuns=" + calls.stream()
                            .filter(r -> producer.groupOf.containsKey(r.id())).count()
                    + " waitedForGroup=" + waitedForGroup(calls, producer.groupOf) + " groupOverlaps=" + overlaps.size()
                    + " " + schedules.figures(handled);
            return new Result(figures, violations);
        }
        finally {
            redisson.shutdown();
        }
    }

    /**
     * Runs of a group that were due while the group's run before them was still going: without the
     * limit a free worker could have started them then. Shows that the rule was put to the test.
     */
    private static int waitedForGroup(List<RunLog.Run> runs, Map<String, String> groupOf) {
        Map<String, List<RunLog.Run>> byGroup = new HashMap<>();
        runs.stream().filter(r -> groupOf.containsKey(r.id()))
                .forEach(r -> byGroup.computeIfAbsent(groupOf.get(r.id()), g -> new ArrayList<>()).add(r));
        int waited = 0;
        for (List<RunLog.Run> list : byGroup.values()) {
            list.sort((a, b) -> Long.compare(a.startedAt(), b.startedAt()));
            for (int i = 1; i < list.size(); i++) {
                RunLog.Run before = list.get(i - 1);
                if (before.ended() && list.get(i).dueAt() < before.endedAt()) {
                    waited++;
                }
            }
        }
        return waited;
    }

    private static boolean isDead(RedisJobStore store, String id) {
        return store.find(whole(QUEUE), id).map(JobInfo::state).orElse(null) == JobState.DEAD;
    }

    private static String first(Set<String> ids) {
        return ids.stream().limit(10).toList() + (ids.size() > 10 ? " (+" + (ids.size() - 10) + ")" : "");
    }

    /**
     * The load: publishes (generated ids, keys, replacing keys, batches), cancels and reschedules at
     * a steady pace, and remembers what each call answered. A call that threw is ambiguous: its job
     * may or may not exist, so it is counted, not checked.
     */
    static final class Producer {

        final Set<String> accepted = new HashSet<>();
        /** The group of each grouped job published. */
        final Map<String, String> groupOf = new HashMap<>();
        final Map<String, Long> keyedPublishedAt = new HashMap<>();
        /** Keyed publishes after which their key had a successor waiting (their own, or one they were kept out of). */
        int keyedQueued;
        final Set<String> cancelled = new HashSet<>();
        /** When each cancel that answered true returned. */
        final Map<String, Long> cancelledAt = new HashMap<>();
        final List<String> pending = new ArrayList<>();
        int ambiguous;
        private final DelayPublisher publisher;
        private final Random random;
        private int n;
        private int poison;

        Producer(DelayPublisher publisher, Random random) {
            this.publisher = publisher;
            this.random = random;
        }

        void step() {
            int op = random.nextInt(100);
            try {
                if (op < 45) {
                    remember(publisher.publish(QUEUE, work(), delay()));
                }
                else if (op < 60) {
                    // 100 keys whose jobs work 500 ms: a key is published again every few seconds, and
                    // now and then meets its job held, which makes the publish its successor
                    String key = "k-" + random.nextInt(100);
                    long startedAt = System.currentTimeMillis();
                    PublishRequest request = PublishRequest.of(work(500)).delay(delay()).key(key);
                    boolean replace = random.nextBoolean();
                    publisher.publish(QUEUE, replace ? request.replaceExisting() : request);
                    keyedPublishedAt.put(key, startedAt);
                    // counted to show the successor path was exercised; the check holds either way
                    if (publisher.find(QUEUE, key).map(job -> job.successor() != null).orElse(false)) {
                        keyedQueued++;
                    }
                    cancelled.remove(key);
                }
                else if (op < 70) {
                    List<PublishRequest> batch = new ArrayList<>();
                    for (int i = 0, size = 2 + random.nextInt(10); i < size; i++) {
                        batch.add(PublishRequest.of(work()).delay(delay()));
                    }
                    publisher.publishAll(QUEUE, batch).forEach(this::remember);
                }
                else if (op < 82 && !pending.isEmpty()) {
                    String id = pending.remove(random.nextInt(pending.size()));
                    if (publisher.cancel(QUEUE, id)) {
                        cancelled.add(id);
                        cancelledAt.put(id, System.currentTimeMillis());
                    }
                }
                else if (op < 94 && !pending.isEmpty()) {
                    publisher.reschedule(QUEUE, pending.get(random.nextInt(pending.size())), delay());
                }
                else if (op < 95 && poison < 2) {
                    publisher.publish(QUEUE, Work.of(n++, 0), Duration.ZERO, "poison-" + poison++);
                }
                else if (op >= 95) {
                    // a burst of one group, due at once: the limit makes its jobs run one after another
                    String group = "g-" + random.nextInt(5);
                    Duration delay = delay();
                    List<PublishRequest> batch = new ArrayList<>();
                    for (int i = 0; i < 6; i++) {
                        // no job past the handler timeout: an abandoned call may run beside the next
                        // one of its group (guarantees.md), which is not what this rule checks
                        Work work = random.nextInt(10) == 0 ? new Work(n++, -1, 100) : Work.of(n++, 100);
                        batch.add(PublishRequest.of(work).delay(delay).group(group));
                    }
                    for (String id : publisher.publishAll(QUEUE, batch)) {
                        remember(id);
                        groupOf.put(id, group);
                    }
                }
            }
            catch (RuntimeException ex) {
                ambiguous++;
            }
            if (pending.size() > 2000) {
                pending.subList(0, 1000).clear();
            }
        }

        private void remember(String id) {
            accepted.add(id);
            pending.add(id);
        }

        private Work work() {
            return work(20);
        }

        /** Mostly work of normalMs; now and then one that fails its first attempt or runs past the handler timeout. */
        private Work work(long normalMs) {
            int kind = random.nextInt(100);
            if (kind < 5) {
                return new Work(n++, -1, 20); // fails its first attempt
            }
            if (kind < 8) {
                return new Work(n++, 3000, 20); // runs past the 2 s handler timeout the first time
            }
            return Work.of(n++, normalMs);
        }

        private Duration delay() {
            return Duration.ofMillis(random.nextInt(8000));
        }
    }
}
