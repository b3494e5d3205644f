package dev.delayjobs.actuate;

import java.util.LinkedHashMap;
import java.util.Map;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.EndpointWebExtension;

/**
 * Over HTTP, a write to an unknown queue answers 404 (a bare endpoint would answer 204), and a
 * read or write with a wrong argument (a dead-job page out of reach among them) answers 400 with
 * what was wrong in {@code detail} (actuator's own 400 leaves it out of the body).
 */
@EndpointWebExtension(endpoint = DelayQueuesEndpoint.class)
public class DelayQueuesWebEndpointExtension {

    private final DelayQueuesEndpoint endpoint;

    public DelayQueuesWebEndpointExtension(DelayQueuesEndpoint endpoint) {
        this.endpoint = endpoint;
    }

    @ReadOperation
    public WebEndpointResponse<Object> queue(@Selector String queue, @Nullable Integer page, @Nullable Integer size,
            @Nullable String after) {
        DelayQueuesEndpoint.QueueReport report;
        try {
            report = endpoint.queue(queue, page, size, after);
        }
        catch (InvalidEndpointRequestException ex) {
            return badRequest(ex);
        }
        return report == null ? new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND) : new WebEndpointResponse<>(report);
    }

    @WriteOperation
    public WebEndpointResponse<Object> act(@Selector String queue, @Selector String action, @Nullable String id,
            @Nullable Boolean all, @Nullable String limit) {
        DelayQueuesEndpoint.ActionResult result;
        try {
            result = endpoint.act(queue, action, id, all, limit);
        }
        catch (InvalidEndpointRequestException ex) {
            return badRequest(ex);
        }
        return result == null ? new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND) : new WebEndpointResponse<>(result);
    }

    private static WebEndpointResponse<Object> badRequest(InvalidEndpointRequestException ex) {
        Map<String, Object> problem = new LinkedHashMap<>();
        problem.put("title", "Bad Request");
        problem.put("status", WebEndpointResponse.STATUS_BAD_REQUEST);
        problem.put("detail", ex.getMessage());
        return new WebEndpointResponse<>(problem, WebEndpointResponse.STATUS_BAD_REQUEST);
    }
}
