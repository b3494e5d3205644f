package dev.delayjobs.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.redisson.api.RScript;
import org.redisson.api.RScript.Mode;
import org.redisson.api.RScript.ReturnType;
import org.redisson.api.RedissonClient;

import dev.delayjobs.DelayQueueException;
import dev.delayjobs.queue.Partition;

/**
 * The publish.lua calls of a {@link RedisJobStore}: with the client's request memo lifetime, and
 * for queues whose publishes wait for replicas, with the replicas' wait.
 */
final class PublishCalls {

    private static final LuaScript PUBLISH = LuaScript.load(Script.PUBLISH);
    /** publish.lua's refusal of jobs routed by another partition count than the queue's. */
    private static final Pattern LAYOUT_ERROR = Pattern.compile("LAYOUT (\\d+)");

    private final RedissonClient redisson;
    private final RScript script;
    private final RequestMemo memo;
    private final Function<Partition, ReplicaConfirmation> confirmations;
    private final LuaScript publishScript;
    /** The publish script by the replica wait of confirmed publishes, which each resent copy waits too. */
    private final Map<Duration, LuaScript> confirmedPublishScripts = new ConcurrentHashMap<>();

    PublishCalls(RedissonClient redisson, RScript script, RequestMemo memo,
            Function<Partition, ReplicaConfirmation> confirmations) {
        this.redisson = redisson;
        this.script = script;
        this.memo = memo;
        this.confirmations = confirmations;
        this.publishScript = PUBLISH.withMemo(memo.lifetimeMs(0));
    }

    private LuaScript publishScript(ReplicaConfirmation confirmation) {
        return confirmedPublishScripts.computeIfAbsent(confirmation.timeout(),
                wait -> PUBLISH.withMemo(memo.lifetimeMs(wait.toMillis())));
    }

    /** @param k the keys of {@code partition} */
    CompletableFuture<List<PublishOutcome>> publishAsync(Partition partition, QueueKeys k, List<NewJob> jobs) {
        String queue = partition.name();
        RequestMemo.Request request = RequestMemo.request(k);
        Object[] args = new Object[3 + jobs.size() * 4 + 1];
        args[0] = k.wakeChannel();
        args[1] = Integer.toString(jobs.size());
        args[2] = Integer.toString(partition.count());
        int i = 3;
        for (NewJob job : jobs) {
            args[i++] = job.id();
            args[i++] = kind(job);
            // base 36: publish.lua puts it into the record as it is (the age of a delay, the due time of an instant)
            args[i++] = Long.toString(job.time(), Character.MAX_RADIX);
            args[i++] = job.payload();
        }
        args[i] = request.field();
        List<Object> keyList = k.of(k.jobs(), k.delayed(), k.ready(), k.stats(), k.dead(), k.errors(), k.request(request),
                k.control(), k.successors(), k.claims(), k.groups(), k.groupsReady(), k.groupHeld());
        ReplicaConfirmation confirmation = confirmations.apply(partition);
        CompletableFuture<List<Object>> reply;
        if (confirmation.replicas() == 0) {
            reply = publishScript.runAsync(script, Mode.READ_WRITE, ReturnType.LIST, keyList, args);
        }
        else {
            reply = publishScript(confirmation).<List<Object>>runConfirmedAsync(redisson, Mode.READ_WRITE, ReturnType.LIST, keyList,
                    confirmation, args).thenApply(confirmed -> confirmedReply(queue, jobs.size(), confirmation, confirmed));
        }
        return reply.handle((result, failure) -> {
            if (failure != null) {
                throw layoutChanged(queue, RedisCalls.failure("publish to", queue, failure));
            }
            return outcomes(result);
        });
    }

    /** A job's mode, replace policy and group in one argument (publish.lua's kind): fewer arguments to encode and convert per job. */
    private static String kind(NewJob job) {
        String kind = job.relative()
                ? (job.generatedId() ? "dn" : job.replaceExisting() ? "d1" : "d0")
                : (job.generatedId() ? "an" : job.replaceExisting() ? "a1" : "a0");
        return job.group() == null ? kind : kind + job.group();
    }

    private static List<Object> confirmedReply(String queue, int jobs, ReplicaConfirmation confirmation,
            LuaScript.Confirmed<List<Object>> confirmed) {
        if (confirmed.replicas() < confirmation.replicas()) {
            throw new DelayQueueException("Queue '" + queue + "': " + jobs + " job(s) written on the master, "
                    + "but only " + confirmed.replicas() + " of " + confirmation.replicas() + " replica(s) confirmed them "
                    + "within " + confirmation.timeout().toMillis() + " ms (delay.publisher.confirm-replicas); a "
                    + "failover now could lose them. Publishing them again with the same business keys is safe (an "
                    + "existing job is kept, not doubled); a job published without a key would be published twice");
        }
        return confirmed.reply();
    }

    private static List<PublishOutcome> outcomes(List<Object> statuses) {
        List<PublishOutcome> outcomes = new ArrayList<>(statuses.size());
        for (Object status : statuses) {
            outcomes.add(switch (((Number) status).intValue()) {
                case 1 -> PublishOutcome.CREATED;
                case 2 -> PublishOutcome.REPLACED;
                case 3 -> PublishOutcome.QUEUED_AS_SUCCESSOR;
                default -> PublishOutcome.KEPT_EXISTING;
            });
        }
        return outcomes;
    }

    /** The {@link LayoutChangedException} that {@code ex} reports (publish.lua's 'LAYOUT n' error), else {@code ex}. */
    private static DelayQueueException layoutChanged(String queue, DelayQueueException ex) {
        for (Throwable t = ex; t != null; t = t.getCause() == t ? null : t.getCause()) {
            String message = String.valueOf(t.getMessage());
            Matcher count = LAYOUT_ERROR.matcher(message);
            if (count.find()) {
                return new LayoutChangedException(queue, Integer.parseInt(count.group(1)));
            }
        }
        return ex;
    }
}
