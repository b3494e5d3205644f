package dev.delayjobs.actuate;

import java.util.List;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;

import dev.delayjobs.DelayQueueControl;
import dev.delayjobs.RateLimit;
import dev.delayjobs.actuate.DelayQueuesEndpoint.ActionResult;
import dev.delayjobs.bridge.RedissonQueueMigration;
import dev.delayjobs.core.JobArguments;
import dev.delayjobs.partition.PartitionedQueues;
import dev.delayjobs.queue.QueueName;
import dev.delayjobs.schedule.DelaySchedules;

/**
 * The write operations of {@link DelayQueuesEndpoint} on one known queue
 * ({@code POST /actuator/delayqueues/{queue}/{action}}): the request checked, the action run, its
 * {@link ActionResult}. Apart from the reads, since they change queues and the reads do not.
 */
final class QueueActions {

    private final PartitionedQueues store;
    private final DelayQueueControl control;
    private final @Nullable RedissonQueueMigration migration;
    /** The endpoint's schedules, which it owns: {@code remove-schedule} is a bad request while there are none. */
    private final Supplier<@Nullable DelaySchedules> schedules;

    QueueActions(PartitionedQueues store, DelayQueueControl control, @Nullable RedissonQueueMigration migration,
            Supplier<@Nullable DelaySchedules> schedules) {
        this.store = store;
        this.control = control;
        this.migration = migration;
        this.schedules = schedules;
    }

    /** Runs {@code action} on {@code name}, a queue the registry holds. */
    ActionResult act(QueueName name, String action, @Nullable String id, @Nullable Boolean all, @Nullable String limit) {
        String queue = name.value();
        QueueAction operation = QueueAction.of(action).orElseThrow(() -> new InvalidEndpointRequestException(
                "unknown action '" + action + "': use " + QueueAction.names("or"), "unknown action"));
        ActionResult onQueue = switch (operation) {
            case PAUSE -> new ActionResult(queue, action, null, control.pause(queue) ? 1 : 0);
            case RESUME -> new ActionResult(queue, action, null, control.resume(queue) ? 1 : 0);
            case RATE_LIMIT -> {
                control.setRateLimit(queue, rateLimit(limit));
                yield new ActionResult(queue, action, null, 1);
            }
            case MIGRATE -> migrate(queue);
            case REMOVE_SCHEDULE -> removeSchedule(queue, id);
            case REQUEUE_DEAD, DELETE_DEAD, CANCEL -> null; // an action on jobs, below
        };
        if (onQueue != null) {
            return onQueue;
        }
        if (id != null) {
            try {
                JobArguments.id(id);
            }
            catch (IllegalArgumentException ex) {
                throw new InvalidEndpointRequestException(ex.getMessage(), "invalid id");
            }
        }
        boolean everyDeadJob = Boolean.TRUE.equals(all);
        if (id != null && everyDeadJob) {
            throw new InvalidEndpointRequestException("give either an id or \"all\": true, not both", "id and all");
        }
        if (id == null && !everyDeadJob && operation != QueueAction.CANCEL) {
            throw new InvalidEndpointRequestException(action + " needs {\"id\": \"<job id>\"} for one dead job, or "
                    + "{\"all\": true} for every dead job of the queue", "missing id or all");
        }
        List<String> ids = id == null ? List.of() : List.of(id);
        long affected = switch (operation) {
            case REQUEUE_DEAD -> store.requeueDead(name, ids);
            case DELETE_DEAD -> store.deleteDead(name, ids);
            case CANCEL -> {
                if (id == null) {
                    throw new InvalidEndpointRequestException("cancel needs the id of the job", "missing id");
                }
                yield store.cancel(name, id) ? 1 : 0;
            }
            default -> throw new IllegalStateException("handled above: " + operation);
        };
        return new ActionResult(queue, action, id, affected);
    }

    private ActionResult removeSchedule(String queue, @Nullable String name) {
        DelaySchedules schedules = this.schedules.get();
        if (schedules == null) {
            throw new InvalidEndpointRequestException("schedules are not available here", "no schedules");
        }
        if (name == null || name.isBlank()) {
            throw new InvalidEndpointRequestException("remove-schedule needs {\"id\": \"<schedule name>\"}", "missing id");
        }
        return new ActionResult(queue, "remove-schedule", name, schedules.remove(queue, name) ? 1 : 0);
    }

    private ActionResult migrate(String queue) {
        if (migration == null) {
            throw new InvalidEndpointRequestException("queue '" + queue + "' does not bridge a Redisson RDelayedQueue: "
                    + "there is nothing to migrate", "not bridged");
        }
        RedissonQueueMigration.Result result;
        try {
            result = migration.migrate(queue);
        }
        catch (IllegalArgumentException | IllegalStateException ex) {
            throw new InvalidEndpointRequestException(ex.getMessage(), "cannot migrate");
        }
        return new ActionResult(queue, "migrate", null, result.jobs(), result);
    }

    private static @Nullable RateLimit rateLimit(@Nullable String limit) {
        if (limit == null || limit.isBlank()) {
            throw new InvalidEndpointRequestException("rate-limit needs {\"limit\": \"<permits>/<window>\"}, for example "
                    + "{\"limit\": \"50/1s\"}, or {\"limit\": \"none\"} to go back to the configured limits", "missing limit");
        }
        if (limit.trim().equalsIgnoreCase("none")) {
            return null;
        }
        try {
            return RateLimit.parse(limit.trim());
        }
        catch (IllegalArgumentException ex) {
            throw new InvalidEndpointRequestException(ex.getMessage(), "invalid limit");
        }
    }
}
