package dev.delayjobs.benchmark;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Redis time per script: {@code INFO commandstats} sums every {@code EVALSHA} into one line, so
 * during a phase this logs every command in {@code SLOWLOG} (threshold 0) and drains the log
 * every 50 ms from its own connection, adding up each entry's duration by what ran: the starter's
 * scripts by name ({@link Scripts}), others by their first key. The duration Redis logs is the
 * command's execution, the same clock as commandstats' {@code usec}; logging every command costs
 * Redis CPU outside that clock, so a phase measured this way does not give the CPU per job.
 */
final class ScriptTimes implements AutoCloseable {

    /** Calls and µs of one kind of command. */
    record Time(long calls, long usec) {
        Time plus(long usec) {
            return new Time(calls + 1, this.usec + usec);
        }

        Time minus(Time earlier) {
            return new Time(calls - earlier.calls, usec - earlier.usec);
        }
    }

    private final RespClient resp;
    private final Map<String, Time> times = new TreeMap<>();
    private final Thread drainer;
    private volatile boolean running = true;
    private long lastId = -1;
    private long missed;
    private int window = 1000;

    ScriptTimes(String host, int port) {
        this.resp = new RespClient(host, port);
        resp.call("CONFIG", "SET", "slowlog-max-len", "50000");
        resp.call("SLOWLOG", "RESET");
        resp.call("CONFIG", "SET", "slowlog-log-slower-than", "0");
        drainer = new Thread(this::drainLoop, "benchmark-script-times");
        drainer.setDaemon(true);
        drainer.start();
    }

    private void drainLoop() {
        while (running) {
            drain();
            Pace.sleepMs(50);
        }
    }

    @SuppressWarnings("unchecked")
    private synchronized void drain() {
        while (true) {
            List<Object> entries = (List<Object>) resp.call("SLOWLOG", "GET", Integer.toString(window));
            long oldest = entries.isEmpty() ? Long.MAX_VALUE : (Long) ((List<?>) entries.get(entries.size() - 1)).get(0);
            if (entries.size() == window && oldest > lastId + 1 && window < 50_000) {
                window = Math.min(50_000, window * 4); // more arrived than we read: read further back
                continue;
            }
            if (lastId >= 0 && oldest > lastId + 1 && oldest != Long.MAX_VALUE) {
                missed += oldest - lastId - 1;
            }
            long newest = lastId;
            for (Object e : entries) {
                List<?> entry = (List<?>) e;
                long id = (Long) entry.get(0);
                if (id <= lastId) {
                    continue;
                }
                newest = Math.max(newest, id);
                long usec = (Long) entry.get(2);
                List<?> args = (List<?>) entry.get(3);
                String client = entry.size() > 4 ? String.valueOf(entry.get(4)) : "";
                times.merge(kind(args, client), new Time(1, usec), (a, b) -> new Time(a.calls + 1, a.usec + b.usec));
            }
            lastId = newest;
            return;
        }
    }

    /** evalsha:claim for a starter script, evalsha:other(firstKey, sha) otherwise; a plain command by its name (inner: run by a script). */
    private static String kind(List<?> args, String client) {
        String name = args.isEmpty() ? "" : args.get(0).toString().toLowerCase();
        if ((name.equals("evalsha") || name.equals("eval")) && args.size() > 1) {
            String named = Scripts.name("evalsha:" + args.get(1));
            if (named.equals("evalsha:other") && args.size() > 3) {
                String sha = args.get(1).toString();
                return "evalsha:other(" + args.get(3) + ", " + sha.substring(0, Math.min(8, sha.length())) + ")";
            }
            return named;
        }
        // commands a script runs come from the Lua client, which has no address
        boolean inner = client.isEmpty() || client.startsWith("?");
        return (inner ? "  in scripts: " : "") + name;
    }

    /** What ran since the start, by kind; stops logging. */
    synchronized Map<String, Time> finish() {
        running = false;
        drain();
        resp.call("CONFIG", "SET", "slowlog-log-slower-than", "1000");
        resp.call("SLOWLOG", "RESET");
        return new TreeMap<>(times);
    }

    /** Log entries that went by between two drains (the log is a ring): not in the figures. */
    synchronized long missed() {
        return missed;
    }

    @Override
    public void close() {
        running = false;
        resp.close();
    }
}
