package dev.delayjobs.actuate;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The write operations of the {@code delayqueues} endpoint ({@code POST .../{queue}/{action}}): the
 * one list of them, with the body each expects. The endpoint dispatches on it, and the texts that
 * name the operations (an unknown action, a write to a read-only endpoint, a POST without a body)
 * are made from it, so a new operation is one constant here and its case in
 * {@link DelayQueuesEndpoint#act}.
 */
enum QueueAction {

    /** Requeues one dead job, or every dead job of the queue. */
    REQUEUE_DEAD("requeue-dead", "{\"id\": \"<job id>\"} for one job, {\"all\": true} for every dead job of the queue"),
    /** Deletes one dead job, or every dead job of the queue. */
    DELETE_DEAD("delete-dead", "{\"id\": \"<job id>\"} for one job, {\"all\": true} for every dead job of the queue"),
    /** Cancels one waiting job. */
    CANCEL("cancel", "{\"id\": \"<job id>\"}"),
    /** Pauses the queue on every instance. */
    PAUSE("pause", "{}"),
    /** Resumes the queue on every instance. */
    RESUME("resume", "{}"),
    /** Sets or clears the queue's runtime rate limit. */
    RATE_LIMIT("rate-limit", "{\"limit\": \"50/1s\"}, or {\"limit\": \"none\"}"),
    /** Removes one schedule of the queue (a declared one no running application declares any more, say). */
    REMOVE_SCHEDULE("remove-schedule", "{\"id\": \"<schedule name>\"}"),
    /** Moves the elements of a bridged Redisson queue into native jobs. */
    MIGRATE("migrate", "{}");

    /** Its last path segment. */
    final String path;
    /** The JSON body it expects. */
    final String body;

    QueueAction(String path, String body) {
        this.path = path;
        this.body = body;
    }

    static Optional<QueueAction> of(String path) {
        return Arrays.stream(values()).filter(action -> action.path.equals(path)).findFirst();
    }

    /** "requeue-dead, delete-dead, ... or migrate" ({@code last} joins the last two). */
    static String names(String last) {
        List<String> paths = Arrays.stream(values()).map(action -> action.path).toList();
        return String.join(", ", paths.subList(0, paths.size() - 1)) + " " + last + " " + paths.get(paths.size() - 1);
    }

    /** What each operation expects as its body, for a request that sent none. */
    static String bodies() {
        return Arrays.stream(values()).map(action -> action.body + " for " + action.path)
                .collect(Collectors.joining("; ", "Send Content-Type: application/json with a body: ", ""));
    }
}
