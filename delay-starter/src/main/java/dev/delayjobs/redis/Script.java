package dev.delayjobs.redis;

import java.util.List;
import java.util.Locale;

/**
 * Every script of this package with the KEYS and ARGV it takes, in order, as its header lists them
 * ({@code -- KEYS[n] name: ...}, {@code -- ARGV[n..] a, b: ...} for a tail repeated to the end).
 * {@code ScriptSignatureTest} holds each script's header to its constant here, and {@link LuaScript}
 * refuses a call whose key or argument count does not fit, before anything reaches Redis.
 */
enum Script {

    ACK(keys("active", "jobs", "errors", "stats", "delayed", "ready", "successors", "claims", "groups", "groups-ready",
            "group-held", "schedules", "schedule-outcomes"),
            args("wake").each("id", "gen", "attempt")),
    BRIDGE_ADOPT(keys("target", "timeouts", "pending", "jobs", "delayed", "ready", "stats", "dead", "errors"),
            args("wake", "count").each("source", "element", "id", "body")),
    BRIDGE_PEEK(keys("target", "timeouts", "pending"), args("what", "max", "overdue-ms")),
    BRIDGE_STATS(keys("target", "timeouts"), args()),
    BURY(keys("active", "jobs", "dead", "errors", "stats", "delayed", "ready", "successors", "claims", "groups-ready",
            "group-held", "schedules", "schedule-outcomes", "groups"),
            args("id", "gen", "error", "attempt", "wake")),
    CANCEL(keys("jobs", "delayed", "dead", "errors", "memo", "successors", "claims", "groups"), args("id").last("memo")),
    CLAIM(keys("ready", "active", "jobs", "delayed", "dead", "errors", "stats", "instances", "fences", "memo", "control",
            "rate-log", "claims", "groups", "groups-ready", "group-held"),
            args("n", "instance", "lease-ms", "epoch", "longest", "permits", "window-ms", "partition", "partitions", "start",
                    "group-limit").last("memo")),
    CLOSE_LAYOUT(keys("control", "jobs", "delayed", "ready", "dead", "instances"), args("old", "new", "side", "instance")),
    CONSUMER_INSTANCES(keys("instances"), args()),
    CONTROL_STATE(keys("control"), args()),
    DATA_FORMAT(keys("data-format"), args("version")),
    DEAD_PAGE(keys("dead", "jobs", "errors", "claims"), args("count", "offset", "cursor-time", "cursor-id", "most-bytes")),
    DELETE_DEAD(keys("dead", "jobs", "errors", "claims", "groups"), args("max").each("id")),
    EXPIRED_INSTANCES(keys("instances"), args()),
    FAST_FORWARD(keys("jobs", "delayed", "ready", "groups", "groups-ready", "group-held"), args("window-ms", "max")),
    FIND(keys("jobs", "delayed", "dead", "errors", "successors", "claims", "groups"), args("id")),
    GROUP_PENDING(keys("delayed", "ready", "groups", "group-held", "instances", "claims"), args("group", "active-prefix")),
    HEARTBEAT(keys("instances", "workers"), args("instance", "lease-ms", "concurrency")),
    KNOWN_QUEUES(keys("registry"), args()),
    PAUSE(keys("control"), args("on-startup", "channel")),
    PAYLOAD_VERSIONS(keys("delayed", "ready", "jobs"), args("most-jobs", "most-bytes")),
    PUBLISH(keys("jobs", "delayed", "ready", "stats", "dead", "errors", "memo", "control", "successors", "claims", "groups",
            "groups-ready", "group-held"),
            args("wake", "count", "partitions").each("id", "kind", "time", "payload").last("memo")),
    QUEUE_STATS(keys("delayed", "ready", "dead", "stats", "instances", "workers", "jobs", "control", "claims", "groups-ready")
            .each("active"), args("active-prefix", "most-held-ids", "groups-read", "group-heads", "head-bytes")),
    RATE_LIMIT(keys("control"), args("permits", "window-ms", "channel")),
    RECORD_LAYOUT(keys("layouts"), args("partitions", "queue")),
    RECORD_PARTITION_LAYOUT(keys("control"), args("partitions")),
    RECORDED_LAYOUT(keys("layouts"), args("queue")),
    RECOVER_EXPIRED(keys("instances", "workers", "ready", "jobs", "dead", "errors", "stats", "fences", "forgotten-fences",
            "delayed", "successors", "claims", "groups-ready", "group-held", "schedules", "schedule-outcomes", "groups").each("active"),
            args("active-prefix", "max-attempts", "fence-kept-ms", "most-held-ids")),
    REGISTER_QUEUE(keys("registry"), args("queue")),
    RELEASE(keys("instances", "workers", "ready", "fences", "forgotten-fences", "claims", "active", "groups-ready",
            "group-held", "groups"),
            args("instance", "fence", "fence-kept-ms")),
    RELEASE_ALL_BUT(keys("ready", "fences", "forgotten-fences", "claims", "active", "groups-ready", "group-held",
            "groups"), args("instance", "fence").each("keep")),
    REQUEUE_DEAD(keys("dead", "jobs", "errors", "ready", "stats", "claims", "groups", "groups-ready", "group-held"),
            args("max").each("id")),
    RESCHEDULE(keys("jobs", "delayed", "ready", "dead", "claims", "groups", "groups-ready", "group-held"),
            args("id", "mode", "time", "wake")),
    RESUME(keys("control"), args("channel")),
    RETRY(keys("active", "jobs", "delayed", "errors", "stats", "ready", "successors", "claims", "groups-ready",
            "group-held", "schedules", "schedule-outcomes", "groups"),
            args("id", "gen", "error", "backoff-ms", "wake", "attempt")),
    SCHEDULE_DECLARE(keys("schedules", "schedule-ticks", "schedule-declared", "schedules-parked", "schedule-ahead",
            "schedule-ahead-due", "jobs", "delayed"),
            args("name", "value", "first-tick", "paused", "mode", "declared")),
    SCHEDULE_PARK(keys("schedules", "schedule-ticks", "schedules-parked"), args("action", "name", "spec", "tick")),
    SCHEDULE_REMOVE(keys("schedules", "schedule-ticks", "schedule-last", "schedule-outcomes", "schedule-declared",
            "schedules-parked", "schedule-ahead", "schedule-ahead-due", "jobs", "delayed"), args().each("name")),
    SCHEDULE_SET_TICK(keys("schedules", "schedule-ticks", "schedule-ahead", "schedule-ahead-due", "jobs", "delayed"),
            args("name", "spec", "tick")),
    SCHEDULES_DECLARED(keys("schedule-declared"), args("before-ms", "max").each("name")),
    SCHEDULES_DUE(keys("schedules", "schedule-ticks", "schedule-ahead", "schedule-ahead-due"),
            args("lookahead-ms", "max", "soon-ms", "offset")),
    SCHEDULES_PAGE(keys("schedules", "schedule-ticks", "schedule-outcomes", "schedule-declared", "schedules-parked"),
            args("cursor", "count")),
    START(keys("claims"), args().each("id", "gen", "attempt")),
    TICK(keys("schedules", "schedule-ticks", "jobs", "delayed", "ready", "stats", "control", "dead", "schedule-last",
            "schedule-outcomes", "schedule-ahead", "schedule-ahead-due"),
            args("wake", "partitions", "ahead").each("name", "spec", "tick", "fire", "fire-at", "next", "overlap")),
    TRANSFER(keys("delayed", "ready", "groups", "groups-ready", "group-held"), args("max")),
    TRIM_DEAD(keys("dead", "jobs", "errors", "claims", "groups"), args("retention-ms", "max"));

    private final Names keys;
    private final Names args;

    Script(Names keys, Names args) {
        this.keys = keys;
        this.args = args;
    }

    /** The file's name without {@code .lua}: the constant's name in lower case, words joined by '-'. */
    String file() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    Names keyNames() {
        return keys;
    }

    Names argNames() {
        return args;
    }

    /**
     * The names of a script's KEYS or ARGV: {@code fixed} at positions 1 to n, then {@code each}
     * repeated (any number of times, none included), then {@code last} (at most one name: the request
     * memo field of the scripts that include {@code _memo.lua}, {@code -- ARGV[last] memo} in the header).
     */
    record Names(List<String> fixed, List<String> each, List<String> last) {

        Names(List<String> fixed, List<String> each) {
            this(fixed, each, List.of());
        }

        Names each(String... names) {
            return new Names(fixed, List.of(names), last);
        }

        Names last(String name) {
            return new Names(fixed, each, List.of(name));
        }

        /** Whether a call with {@code count} values fits. */
        boolean fits(int count) {
            int tail = count - fixed.size() - last.size();
            return each.isEmpty() ? tail == 0 : tail >= 0 && tail % each.size() == 0;
        }

        @Override
        public String toString() {
            return String.join(", ", fixed) + (each.isEmpty() ? "" : (fixed.isEmpty() ? "" : ", ") + "then (" + String.join(", ", each)
                    + ") repeated") + (last.isEmpty() ? "" : ", then " + last.get(0) + " last");
        }
    }

    private static Names keys(String... names) {
        return new Names(List.of(names), List.of());
    }

    private static Names args(String... names) {
        return new Names(List.of(names), List.of());
    }
}
