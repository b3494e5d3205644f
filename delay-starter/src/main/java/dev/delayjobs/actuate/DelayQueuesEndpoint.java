package dev.delayjobs.actuate;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

import dev.delayjobs.DelayQueueControl;
import dev.delayjobs.RateLimit;
import dev.delayjobs.bridge.RedissonQueueMigration;
import dev.delayjobs.listener.ListenerContainerRegistry;
import dev.delayjobs.partition.PartitionedQueues;
import dev.delayjobs.queue.QueueName;
import dev.delayjobs.schedule.DelaySchedules;
import dev.delayjobs.redis.DeadJobs;

/**
 * {@code /actuator/delayqueues}: every queue known under the key prefix, with its counts,
 * lateness, consumers, pause and rate limit; one queue with its most recent dead jobs; and, when
 * write access is granted ({@code management.endpoint.delayqueues.access=unrestricted}),
 * requeueing and deleting dead jobs, cancelling waiting ones, pausing and resuming queues and
 * setting their rate limit.
 */
@Endpoint(id = "delayqueues", defaultAccess = Access.READ_ONLY)
public class DelayQueuesEndpoint {

    static final int DEFAULT_PAGE_SIZE = 20;
    static final int MAX_PAGE_SIZE = 500;
    /** How deep pages by number reach: each partition of the queue reads its newest (page + 1) * size dead jobs. */
    static final int MAX_PAGE_DEPTH = DeadJobs.MAX_PAGE;

    private final PartitionedQueues store;
    private final ListenerContainerRegistry registry;
    private final PayloadVersionsView.Cache payloadVersions;
    private final QueueActions actions;
    private @Nullable DelaySchedules schedules;

    public DelayQueuesEndpoint(PartitionedQueues store, @Nullable ListenerContainerRegistry registry,
            DelayQueueControl control) {
        this(store, registry, control, null);
    }

    /** @param migration migrates queues that bridge a Redisson RDelayedQueue; null when none does */
    public DelayQueuesEndpoint(PartitionedQueues store, @Nullable ListenerContainerRegistry registry,
            DelayQueueControl control, @Nullable RedissonQueueMigration migration) {
        this.store = store;
        this.registry = registry;
        this.actions = new QueueActions(store, control, migration, () -> schedules);
        this.payloadVersions = new PayloadVersionsView.Cache(store);
    }

    /**
     * Lists schedules too ({@code GET /actuator/delayqueues/{queue}/schedules}), and removes them
     * ({@code remove-schedule}); without, that read is a 404 and that action a bad request.
     */
    public DelayQueuesEndpoint withSchedules(@Nullable DelaySchedules schedules) {
        this.schedules = schedules;
        return this;
    }

    @ReadOperation
    public QueuesReport queues() {
        Map<String, QueueView> queues = new TreeMap<>();
        for (QueueName queue : RegisteredQueues.of(store)) {
            queues.put(queue.value(), view(queue));
        }
        return new QueuesReport(queues);
    }

    /**
     * One queue and a page of its dead jobs, newest first; {@code null} (404) for an unknown queue.
     * {@code page} numbers pages of {@code size} jobs from the newest, down to the
     * {@value #MAX_PAGE_DEPTH} newest; {@code after} (the {@code next} of the previous page) goes on
     * from where a page ended, as deep as the dead set goes, at the same cost per page.
     */
    @ReadOperation
    public @Nullable QueueReport queue(@Selector String queue, @Nullable Integer page, @Nullable Integer size,
            @Nullable String after) {
        QueueName name = known(queue);
        if (name == null) {
            return null;
        }
        int pageSize = size == null ? DEFAULT_PAGE_SIZE : size;
        if (pageSize < 1 || pageSize > MAX_PAGE_SIZE) {
            throw new InvalidEndpointRequestException("size must be between 1 and " + MAX_PAGE_SIZE + ", was " + pageSize,
                    "invalid size");
        }
        DeadJobs.Page dead;
        if (after != null) {
            if (page != null) {
                throw new InvalidEndpointRequestException("give either page or after, not both", "page and after");
            }
            DeadJobs.Cursor cursor;
            try {
                cursor = DeadJobs.Cursor.parse(after);
            }
            catch (IllegalArgumentException ex) {
                throw new InvalidEndpointRequestException("after: " + ex.getMessage(), "invalid after");
            }
            dead = store.deadPageAfter(name, cursor, pageSize);
        }
        else {
            int pageNumber = page == null ? 0 : page;
            if (pageNumber < 0 || (pageNumber + 1L) * pageSize > MAX_PAGE_DEPTH) {
                throw new InvalidEndpointRequestException("page " + pageNumber + " of size " + pageSize + " is out of reach: "
                        + "pages by number reach the " + MAX_PAGE_DEPTH + " newest dead jobs ((page + 1) * size <= "
                        + MAX_PAGE_DEPTH + "); read further with after=<the 'next' of the previous page>", "page too deep");
            }
            dead = store.deadPage(name, pageNumber * pageSize, pageSize);
        }
        List<DeadJobView> jobs = dead.jobs().stream()
                .map(j -> new DeadJobView(j.id(), j.attempts(), j.lastError(), Instant.ofEpochMilli(j.diedAt()),
                        j.payloadVersion()))
                .toList();
        String next = dead.jobs().size() < pageSize ? null : DeadJobs.Cursor.of(dead.jobs().get(pageSize - 1)).toString();
        return new QueueReport(queue, view(name), new DeadJobsPage(after != null ? null : (page == null ? 0 : page),
                pageSize, dead.total(), jobs, next), payloadVersions.of(name));
    }

    /**
     * {@code GET /actuator/delayqueues/{queue}/schedules}: a page of the queue's schedules (name,
     * spec, next tick, paused, last outcome, last declared, undeclared), {@code size} (1 to 1000, 100 by default) from {@code cursor}
     * ({@code 0} first; the page's {@code next}, until it is {@code 0}); null (404) for another
     * {@code what} or without schedules.
     */
    @ReadOperation
    public @Nullable SchedulesReport schedules(@Selector String queue, @Selector String what, @Nullable String cursor,
            @Nullable Integer size) {
        if (!"schedules".equals(what) || schedules == null) {
            return null;
        }
        int count = size == null ? 100 : size;
        if (count < 1 || count > 1000) {
            throw new InvalidEndpointRequestException("size must be between 1 and 1000, was " + count, "invalid size");
        }
        QueueName name;
        try {
            name = QueueName.of(queue);
        }
        catch (IllegalArgumentException ex) {
            throw new InvalidEndpointRequestException(ex.getMessage(), "invalid queue");
        }
        DelaySchedules.Page page = schedules.list(name.value(), cursor == null ? "0" : cursor, count);
        return new SchedulesReport(name.value(), page.schedules().stream()
                .map(s -> new ScheduleView(s.name(), s.spec() == null ? null : s.spec().text(), s.nextTick(), s.paused(),
                        s.lastOutcome(), s.lastDeclared(), s.undeclared()))
                .toList(), page.cursor());
    }

    /**
     * {@code POST /actuator/delayqueues/{queue}/{action}}: {@code requeue-dead} and
     * {@code delete-dead} (one dead job by {@code id}, or every dead job with {@code "all": true},
     * never by default: an empty body acts on nothing), {@code cancel} (a waiting job; id
     * required), {@code pause} and {@code resume} (every instance), {@code rate-limit} with
     * {@code "limit": "50/1s"}, or {@code "none"} to go back to the configured limits, and
     * {@code remove-schedule} (one schedule by its name as {@code id}), and
     * {@code migrate} (a queue that bridges a Redisson {@code RDelayedQueue}: its elements become
     * native jobs; runs to the end in the request, and may be run again).
     */
    @WriteOperation
    public @Nullable ActionResult act(@Selector String queue, @Selector String action, @Nullable String id,
            @Nullable Boolean all, @Nullable String limit) {
        QueueName name = known(queue);
        return name == null ? null : actions.act(name, action, id, all, limit);
    }

    private QueueView view(QueueName queue) {
        RateLimit configured = registry == null ? null
                : registry.getContainer(queue.value()).map(c -> c.settings().rateLimit()).orElse(null);
        return QueueView.of(store.stats(queue), hasLocalHandler(queue), configured);
    }

    /** The queue named {@code queue} when it is a valid name the registry holds; null otherwise (404). */
    private @Nullable QueueName known(String queue) {
        QueueName name;
        try {
            name = QueueName.of(queue);
        }
        catch (IllegalArgumentException ex) {
            return null;
        }
        return RegisteredQueues.of(store).contains(name) ? name : null;
    }

    private boolean hasLocalHandler(QueueName queue) {
        return registry != null && registry.getContainer(queue.value()).isPresent();
    }

    /** Every known queue by name. */
    public record QueuesReport(Map<String, QueueView> queues) {
    }

    /** One queue with a page of its dead jobs, and its waiting jobs per payload version (cached 10 s). */
    public record QueueReport(String queue, QueueView stats, DeadJobsPage dead, PayloadVersionsView payloadVersions) {
    }

    /**
     * What a write operation did: {@code affected} is the number of jobs, or 1 when a pause, resume
     * or limit changed something; {@code migration} tells what a migration did (null for the rest).
     */
    public record ActionResult(String queue, String action, @Nullable String id, long affected,
            RedissonQueueMigration.@Nullable Result migration) {

        ActionResult(String queue, String action, @Nullable String id, long affected) {
            this(queue, action, id, affected, null);
        }
    }
}
