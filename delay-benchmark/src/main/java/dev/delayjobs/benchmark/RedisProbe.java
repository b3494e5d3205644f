package dev.delayjobs.benchmark;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What the server says about itself before and after a phase: commands executed (scripts' inner
 * commands included), CPU, memory, and the longest call (SLOWLOG and LATENCY).
 */
final class RedisProbe implements AutoCloseable {

    /** Calls slower than this are logged by SLOWLOG; the longest one is reported. */
    private static final int SLOWLOG_THRESHOLD_US = 1000;

    private final RespClient resp;

    RedisProbe(String host, int port) {
        this.resp = new RespClient(host, port);
        resp.call("CONFIG", "SET", "slowlog-log-slower-than", Integer.toString(SLOWLOG_THRESHOLD_US));
        resp.call("CONFIG", "SET", "slowlog-max-len", "10000");
        resp.call("CONFIG", "SET", "latency-monitor-threshold", "1");
    }

    String version() {
        return info("server").getOrDefault("redis_version", "?");
    }

    String executable() {
        return info("server").getOrDefault("executable", "?");
    }

    void flushAll() {
        resp.call("FLUSHALL");
        resp.call("SCRIPT", "FLUSH");
    }

    long usedMemory() {
        return Long.parseLong(info("memory").get("used_memory"));
    }

    /** Starts a measured phase: resets the slow log and the latency monitor. */
    Snapshot begin() {
        resp.call("SLOWLOG", "RESET");
        resp.call("LATENCY", "RESET");
        return snapshot();
    }

    Snapshot snapshot() {
        Map<String, String> cpu = info("cpu");
        double cpuSeconds = Double.parseDouble(cpu.get("used_cpu_sys")) + Double.parseDouble(cpu.get("used_cpu_user"));
        long calls = 0;
        long scriptCalls = 0;
        long scriptUsec = 0;
        for (Map.Entry<String, String> entry : info("commandstats").entrySet()) {
            String name = entry.getKey();
            if (!name.startsWith("cmdstat_") || name.equals("cmdstat_info") || name.startsWith("cmdstat_slowlog")
                    || name.startsWith("cmdstat_latency") || name.startsWith("cmdstat_ping")) {
                continue;
            }
            Map<String, String> fields = new HashMap<>();
            for (String part : entry.getValue().split(",")) {
                int eq = part.indexOf('=');
                fields.put(part.substring(0, eq), part.substring(eq + 1));
            }
            long n = Long.parseLong(fields.get("calls"));
            calls += n;
            if (name.startsWith("cmdstat_eval")) {
                scriptCalls += n;
                scriptUsec += Long.parseLong(fields.get("usec"));
            }
        }
        return new Snapshot(System.nanoTime(), cpuSeconds, calls, scriptCalls, scriptUsec, usedMemory());
    }

    /** The longest call since {@link #begin()}, in microseconds, and its command; "<1 ms" when none was slow. */
    Longest longest() {
        long max = 0;
        String command = "";
        @SuppressWarnings("unchecked")
        List<Object> entries = (List<Object>) resp.call("SLOWLOG", "GET", "-1");
        for (Object e : entries) {
            List<?> entry = (List<?>) e;
            long usec = (Long) entry.get(2);
            if (usec > max) {
                max = usec;
                List<?> args = (List<?>) entry.get(3);
                command = args.isEmpty() ? "" : args.get(0).toString().toLowerCase();
            }
        }
        // the latency monitor sees every event above 1 ms, even when the slow log wrapped around
        @SuppressWarnings("unchecked")
        List<Object> events = (List<Object>) resp.call("LATENCY", "LATEST");
        for (Object e : events) {
            List<?> event = (List<?>) e;
            long maxMs = (Long) event.get(3);
            if (maxMs * 1000 > max) {
                max = maxMs * 1000;
                command = event.get(0).toString();
            }
        }
        return new Longest(max, command);
    }

    Map<String, String> info(String section) {
        Map<String, String> out = new HashMap<>();
        for (String line : resp.text("INFO", section).split("\r\n")) {
            int colon = line.indexOf(':');
            if (colon > 0 && !line.startsWith("#")) {
                out.put(line.substring(0, colon), line.substring(colon + 1));
            }
        }
        return out;
    }

    @Override
    public void close() {
        resp.close();
    }

    record Snapshot(long nanos, double cpuSeconds, long calls, long scriptCalls, long scriptUsec, long memory) {
    }

    record Longest(long micros, String command) {
        String describe() {
            if (micros < SLOWLOG_THRESHOLD_US) {
                return "<1 ms";
            }
            return String.format("%.1f ms %s", micros / 1000.0, command);
        }
    }
}
