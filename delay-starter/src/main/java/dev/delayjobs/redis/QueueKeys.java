package dev.delayjobs.redis;

import java.util.List;

import dev.delayjobs.queue.Partition;

/**
 * The Redis key names of one partition of a queue (the queue itself when it is not partitioned):
 * {@code queue} is the partition's name ({@link Partition#name()}). Every key carries the hash tag
 * {@code {queue}} so that each script touches a single Redis Cluster slot.
 */
record QueueKeys(String prefix, String queue) {

    QueueKeys(String prefix, Partition partition) {
        this(prefix, partition.name());
    }

    String jobs() {
        return base() + "jobs";
    }

    /** Per job with a claim state (held, or attempted), its claim entry (see _claims.lua). */
    String claims() {
        return base() + "claims";
    }

    /**
     * The marks of the delayed jobs (see _delayed.lua): one per group with delayed jobs, whose jobs
     * are in {@code delayed():<group>}, and one per page of the default group's delayed jobs, in
     * {@code delayed():\u0002<n>} (indexed in {@link #delayedPages()}); counted in {@link #delayedCounts()}.
     */
    String delayed() {
        return base() + "delayed";
    }

    /** The number of jobs in the groups' delayed zsets and pages, and of their marks in {@link #delayed()}. */
    String delayedCounts() {
        return delayed() + "-counts";
    }

    /** The pages of the default group's delayed jobs, each scored with the lower bound of its due times. */
    String delayedPages() {
        return delayed() + "-pages";
    }

    String ready() {
        return base() + "ready";
    }

    /** Grouped jobs only: id -> group (see _groups.lua); a group's ready list is {@code ready():<group>}. */
    String groups() {
        return base() + "groups";
    }

    /** The rotation of the groups that have ready jobs. */
    String groupsReady() {
        return base() + "groups-ready";
    }

    /** Group -> jobs of it held now, and the rotation's turn counter. */
    String groupHeld() {
        return base() + "group-held";
    }

    String dead() {
        return base() + "dead";
    }

    String errors() {
        return base() + "errors";
    }

    String stats() {
        return base() + "stats";
    }

    /** Keyed publishes that met their job held by a consumer, waiting to take its key (see _successors.lua). */
    String successors() {
        return base() + "successors";
    }

    String instances() {
        return base() + "instances";
    }

    String workers() {
        return base() + "workers";
    }

    /** Per instance, the oldest claim epoch still accepted (see claim.lua). */
    String claimFences() {
        return base() + "fences";
    }

    /** Per instance forgotten (shutdown, lease expiry), when its claim fence may be deleted (see _fences.lua). */
    String forgottenFences() {
        return base() + "fences-forgotten";
    }

    String activePrefix() {
        return base() + "active:";
    }

    String active(String instance) {
        return activePrefix() + instance;
    }

    /**
     * The memo bucket named {@code bucket}: a hash of the memos of the publish, claim and cancel
     * calls of one send-time window and sub-bucket, so that a resent copy does not run again (see
     * _memo.lua and {@link RequestMemo.Request}).
     */
    String request(String bucket) {
        return base() + "req:" + bucket;
    }

    String request(RequestMemo.Request request) {
        return request(request.bucket());
    }

    /** The operator's settings of the queue: paused, resumed, runtime rate limit (see pause.lua). */
    String control() {
        return base() + "control";
    }

    /** When each job started in the last rate-limit window (see claim.lua). */
    String rateLog() {
        return base() + "rate-log";
    }

    /** Tells consumers waiting on a paused or rate-limited queue that its control changed. */
    String controlChannel() {
        return base() + "control-changed";
    }

    /** Schedules of the queue: name -> spec and payload (see schedule-declare.lua). */
    String schedules() {
        return base() + "schedules";
    }

    /** Per schedule not paused, its next tick not yet published (see tick.lua). */
    String scheduleTicks() {
        return base() + "schedule-ticks";
    }

    /** Per schedule, the last tick whose job was published (epoch ms; see tick.lua's overlap check). */
    String scheduleLast() {
        return base() + "schedule-last";
    }

    /** The jobs of ticks published ahead of their instant, by schedule (see _ahead.lua). */
    String scheduleAhead() {
        return base() + "schedule-ahead";
    }

    /** The jobs of ticks published ahead of their instant, by tick (see _ahead.lua). */
    String scheduleAheadDue() {
        return base() + "schedule-ahead-due";
    }

    /** Per schedule, how its last tick's job ended: outcome, when, tick (see _ticks.lua). */
    String scheduleOutcomes() {
        return base() + "schedule-outcomes";
    }

    /** Per declared ({@code @Recurring}) schedule, when a running instance last declared it (epoch ms). */
    String scheduleDeclared() {
        return base() + "schedule-declared";
    }

    /** Schedules whose spec an instance could not read, taken out of the ticks: name -> when last looked at. */
    String schedulesParked() {
        return base() + "schedules-parked";
    }

    String wakeChannel() {
        return base() + "wake";
    }

    /** Names of all queues ever used under this prefix (not hash-tagged: no script touches it). */
    static String registry(String prefix) {
        return prefix + ":queues";
    }

    /** The version of the data format the prefix's keys are written in (see DataFormat). */
    static String dataFormat(String prefix) {
        return prefix + ":format";
    }

    /** Per queue laid out in partitions, how many (not hash-tagged: see QueueLayoutStore). */
    static String layouts(String prefix) {
        return prefix + ":partitions";
    }

    List<Object> of(String... keys) {
        return List.of((Object[]) keys);
    }

    private String base() {
        // what Partition#hashTag() gives for the partition named queue
        return prefix + ":{" + queue + "}:";
    }
}
