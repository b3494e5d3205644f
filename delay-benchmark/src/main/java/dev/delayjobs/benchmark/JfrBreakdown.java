package dev.delayjobs.benchmark;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordingFile;

/**
 * Where a JVM's CPU samples went, by part of the code: reads a JFR recording's
 * {@code jdk.ExecutionSample} events (threads running Java code; {@code jdk.NativeMethodSample}
 * counted apart) and counts each sample for the part its top frame is in (self) and for every part
 * on its stack (inclusive, once per sample), overall and per thread group. The same as
 * {@code jfr print --events jdk.ExecutionSample} aggregated by the top frame's package.
 *
 * <pre>
 * java -cp delay-benchmark.jar -Dloader.main=dev.delayjobs.benchmark.JfrBreakdown \
 *     org.springframework.boot.loader.launch.PropertiesLauncher recording.jfr [thread-name-regex [window-thread-regex]]
 * </pre>
 *
 * With a window-thread regex, only the samples taken between the first and the last sample of the
 * threads it matches count (a phase's publishing pool, e.g. {@code pool-5-thread-.*}, marks the phase).
 */
public final class JfrBreakdown {

    /** The parts, first match wins: the order matters where packages nest. */
    private static final Map<String, List<String>> PARTS = new LinkedHashMap<>();

    static {
        PARTS.put("starter: publish coalescer", List.of("dev.delayjobs.core.PublishCoalescer"));
        PARTS.put("starter: redis (scripts, calls)", List.of("dev.delayjobs.redis."));
        PARTS.put("starter: observation", List.of("dev.delayjobs.observation."));
        PARTS.put("starter: listener/consumer", List.of("dev.delayjobs.listener.", "dev.delayjobs.consumer."));
        PARTS.put("starter: other", List.of("dev.delayjobs.core.", "dev.delayjobs.codec.", "dev.delayjobs.Delay",
                "dev.delayjobs.Publish", "dev.delayjobs.internal."));
        PARTS.put("benchmark", List.of("dev.delayjobs.benchmark."));
        PARTS.put("starter: rest", List.of("dev.delayjobs."));
        PARTS.put("Jackson", List.of("tools.jackson.", "com.fasterxml.jackson."));
        PARTS.put("micrometer (observation, tracing)", List.of("io.micrometer."));
        PARTS.put("Redisson", List.of("org.redisson."));
        PARTS.put("Netty", List.of("io.netty."));
        PARTS.put("Reactor", List.of("reactor."));
        PARTS.put("Spring", List.of("org.springframework."));
        PARTS.put("JDK: concurrency (locks, futures, park)", List.of("java.util.concurrent.", "jdk.internal.misc.Unsafe"));
        PARTS.put("JDK: other", List.of("java.", "jdk.", "sun."));
    }

    private JfrBreakdown() {
    }

    public static void main(String[] args) throws IOException {
        Path file = Path.of(args[0]);
        String threads = args.length > 1 ? args[1] : ".*";
        Instant from = Instant.MIN;
        Instant to = Instant.MAX;
        if (args.length > 2) {
            from = Instant.MAX;
            to = Instant.MIN;
            for (RecordedEvent event : RecordingFile.readAllEvents(file)) {
                if (event.getEventType().getName().equals("jdk.ExecutionSample") && event.getThread("sampledThread") != null
                        && String.valueOf(event.getThread("sampledThread").getJavaName()).matches(args[2])) {
                    from = event.getStartTime().isBefore(from) ? event.getStartTime() : from;
                    to = event.getStartTime().isAfter(to) ? event.getStartTime() : to;
                }
            }
            System.out.println("window: " + from + " .. " + to + " (samples of " + args[2] + ")");
        }
        Map<String, long[]> self = new TreeMap<>();
        Map<String, long[]> inclusive = new TreeMap<>();
        Map<String, Map<String, long[]>> selfByThread = new TreeMap<>();
        Map<String, long[]> samplesByThread = new TreeMap<>();
        Map<String, long[]> topMethods = new TreeMap<>();
        long total = 0;
        long nativeSamples = 0;
        for (RecordedEvent event : RecordingFile.readAllEvents(file)) {
            String type = event.getEventType().getName();
            if (!type.equals("jdk.ExecutionSample") && !type.equals("jdk.NativeMethodSample")) {
                continue;
            }
            if (event.getStartTime().isBefore(from) || event.getStartTime().isAfter(to)) {
                continue;
            }
            String thread = event.getThread("sampledThread") == null ? "?" : event.getThread("sampledThread").getJavaName();
            if (thread == null || !thread.matches(threads)) {
                continue;
            }
            if (type.equals("jdk.NativeMethodSample")) {
                nativeSamples++;
                continue;
            }
            RecordedStackTrace stack = event.getStackTrace();
            if (stack == null || stack.getFrames().isEmpty()) {
                continue;
            }
            total++;
            String group = ThreadTimes.group(thread);
            samplesByThread.computeIfAbsent(group, g -> new long[1])[0]++;
            List<RecordedFrame> frames = stack.getFrames();
            String topClass = frames.get(0).getMethod().getType().getName();
            String top = part(topClass);
            self.computeIfAbsent(top, p -> new long[1])[0]++;
            selfByThread.computeIfAbsent(group, g -> new TreeMap<>()).computeIfAbsent(top, p -> new long[1])[0]++;
            topMethods.computeIfAbsent(topClass + "." + frames.get(0).getMethod().getName(), m -> new long[1])[0]++;
            Set<String> seen = new HashSet<>();
            for (RecordedFrame frame : frames) {
                String p = part(frame.getMethod().getType().getName());
                if (seen.add(p)) {
                    inclusive.computeIfAbsent(p, x -> new long[1])[0]++;
                }
            }
        }
        System.out.printf(Locale.ROOT, "%s: %d execution samples of threads matching %s (%d native-method samples apart)%n",
                file, total, threads, nativeSamples);
        System.out.println("| part | self % | inclusive % |");
        System.out.println("|---|--:|--:|");
        long all = Math.max(1, total);
        for (String part : PARTS.keySet()) {
            long s = self.getOrDefault(part, new long[1])[0];
            long i = inclusive.getOrDefault(part, new long[1])[0];
            if (s + i > 0) {
                System.out.printf(Locale.ROOT, "| %s | %.1f | %.1f |%n", part, 100.0 * s / all, 100.0 * i / all);
            }
        }
        long other = self.getOrDefault("other", new long[1])[0];
        if (other > 0) {
            System.out.printf(Locale.ROOT, "| other | %.1f | |%n", 100.0 * other / all);
        }
        System.out.println();
        System.out.println("By thread group (samples, then self % by part):");
        samplesByThread.entrySet().stream().sorted((a, b) -> Long.compare(b.getValue()[0], a.getValue()[0])).forEach(e -> {
            StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "  %-32s %6d:", e.getKey(), e.getValue()[0]));
            selfByThread.get(e.getKey()).entrySet().stream().sorted((a, b) -> Long.compare(b.getValue()[0], a.getValue()[0]))
                    .limit(6).forEach(p -> line.append(String.format(Locale.ROOT, " %s %.0f%%;", p.getKey(),
                            100.0 * p.getValue()[0] / e.getValue()[0])));
            System.out.println(line);
        });
        System.out.println();
        System.out.println("Top 25 methods (self samples):");
        topMethods.entrySet().stream().sorted((a, b) -> Long.compare(b.getValue()[0], a.getValue()[0])).limit(25)
                .forEach(e -> System.out.printf(Locale.ROOT, "  %5.1f%%  %s%n", 100.0 * e.getValue()[0] / all, e.getKey()));
    }

    private static String part(String className) {
        for (Map.Entry<String, List<String>> e : PARTS.entrySet()) {
            for (String prefix : e.getValue()) {
                if (className.startsWith(prefix)) {
                    return e.getKey();
                }
            }
        }
        return "other";
    }
}
