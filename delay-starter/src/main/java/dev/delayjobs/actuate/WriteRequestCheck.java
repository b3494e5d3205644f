package dev.delayjobs.actuate;

import java.util.LinkedHashMap;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import tools.jackson.databind.json.JsonMapper;

/**
 * Decides how a POST to the {@code delayqueues} endpoint is answered before actuator sees it, for
 * both the servlet and the WebFlux filter: a write while the endpoint is read-only gets a 405 naming
 * the access property, one without {@code Content-Type} or body a 400 saying what to send, anything
 * else passes (null).
 */
final class WriteRequestCheck {

    static final String WHAT_TO_SEND = QueueAction.bodies();

    private static final JsonMapper JSON = new JsonMapper();

    private final DelayQueuesEndpointLocation endpoint;

    WriteRequestCheck(DelayQueuesEndpointLocation endpoint) {
        this.endpoint = endpoint;
    }

    /** Whether the request is a POST below the endpoint's path ({@code path} without the context path). */
    boolean applies(String method, String path) {
        String root = endpoint.path();
        return "POST".equals(method) && root != null && path.startsWith(root + "/");
    }

    /**
     * The answer to a POST that {@link #applies}, or null to let actuator handle it.
     *
     * @param contentLength the declared length, -1 when unknown (chunked), which passes
     */
    @Nullable Problem answer(@Nullable String contentType, long contentLength) {
        if (!endpoint.writesAllowed()) {
            return new Problem(405, "Method Not Allowed",
                    "Writes to the delayqueues endpoint are not allowed: its access is read-only, the default. Set "
                            + "management.endpoint.delayqueues.access=unrestricted to allow " + QueueAction.names("and")
                            + " (and secure the endpoint).");
        }
        if (contentType == null || contentLength == 0) {
            return new Problem(400, "Bad Request",
                    (contentType == null ? "No Content-Type. " : "No body. ") + WHAT_TO_SEND + ".");
        }
        return null;
    }

    /** An RFC 9457 problem; a 405 carries {@code Allow: GET}. */
    record Problem(int status, String title, String detail) {

        static final String CONTENT_TYPE = "application/problem+json";

        @Nullable String allow() {
            return status == 405 ? "GET" : null;
        }

        String json(String instance) {
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("title", title);
            body.put("status", status);
            body.put("detail", detail);
            body.put("instance", instance);
            return JSON.writeValueAsString(body);
        }
    }
}
