package dev.delayjobs.benchmark;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What the server says about itself before and after a phase: commands executed (scripts' inner
 * commands included), CPU, memory, and the longest call (SLOWLOG, which keeps the last 10,000 calls over 1 ms).
 */
final class RedisProbe implements AutoCloseable {

    /** Calls slower than this are logged by SLOWLOG; the longest one is reported. */
    private static final int SLOWLOG_THRESHOLD_US = 1000;

    /** The probe's own commands, left out of the longest call. */
    private static final Set<String> PROBE_COMMANDS = Set.of("slowlog", "latency", "info", "config", "flushall", "script");

    private final RespClient resp;
    private final String host;
    private final int port;

    RedisProbe(String host, int port) {
        this.host = host;
        this.port = port;
        this.resp = new RespClient(host, port);
        resp.call("CONFIG", "SET", "slowlog-log-slower-than", Integer.toString(SLOWLOG_THRESHOLD_US));
        resp.call("CONFIG", "SET", "slowlog-max-len", "10000");
    }

    String host() {
        return host;
    }

    int port() {
        return port;
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

    /** The server's process id (to read its threads' times from /proc when it runs on this machine). */
    long processId() {
        return Long.parseLong(info("server").getOrDefault("process_id", "-1"));
    }

    /** {@code INFO commandstats}: per command, calls and µs so far (scripts' inner commands included). */
    Map<String, ScriptTimes.Time> commandStats() {
        Map<String, ScriptTimes.Time> out = new java.util.TreeMap<>();
        for (Map.Entry<String, String> entry : info("commandstats").entrySet()) {
            if (!entry.getKey().startsWith("cmdstat_")) {
                continue;
            }
            long calls = 0;
            long usec = 0;
            for (String part : entry.getValue().split(",")) {
                if (part.startsWith("calls=")) {
                    calls = Long.parseLong(part.substring(6));
                }
                else if (part.startsWith("usec=")) {
                    usec = Long.parseLong(part.substring(5));
                }
            }
            out.put(entry.getKey().substring("cmdstat_".length()), new ScriptTimes.Time(calls, usec));
        }
        return out;
    }

    /** Per command, the calls and µs of {@code after} since {@code before} (both {@link #commandStats()}), commands not called since left out. */
    static Map<String, ScriptTimes.Time> since(Map<String, ScriptTimes.Time> before, Map<String, ScriptTimes.Time> after) {
        Map<String, ScriptTimes.Time> out = new java.util.TreeMap<>();
        after.forEach((command, now) -> {
            ScriptTimes.Time delta = now.minus(before.getOrDefault(command, new ScriptTimes.Time(0, 0)));
            if (delta.calls() > 0) {
                out.put(command, delta);
            }
        });
        return out;
    }

    /** used_cpu_sys and used_cpu_user so far, seconds. */
    double[] cpuSysUser() {
        Map<String, String> cpu = info("cpu");
        return new double[] { Double.parseDouble(cpu.get("used_cpu_sys")), Double.parseDouble(cpu.get("used_cpu_user")) };
    }

    /** Starts a measured phase: resets the slow log and the latency monitor. */
    Snapshot begin() {
        resp.call("SLOWLOG", "RESET");
        return snapshot();
    }

    Snapshot snapshot() {
        double cpuSeconds = cpuSeconds();
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
            List<?> args = (List<?>) entry.get(3);
            String name = args.isEmpty() ? "" : args.get(0).toString().toLowerCase();
            if (usec > max && !PROBE_COMMANDS.contains(name)) {
                max = usec;
                command = name;
            }
        }
        return new Longest(max, command);
    }

    /** ZCARD of {@code key}: how many members a sorted set holds (0 when it does not exist). */
    long zcard(String key) {
        return (Long) resp.call("ZCARD", key);
    }

    /** CPU the server used so far, system and user, in seconds. */
    double cpuSeconds() {
        Map<String, String> cpu = info("cpu");
        return Double.parseDouble(cpu.get("used_cpu_sys")) + Double.parseDouble(cpu.get("used_cpu_user"));
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
