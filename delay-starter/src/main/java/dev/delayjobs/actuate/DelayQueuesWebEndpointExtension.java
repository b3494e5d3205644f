package dev.delayjobs.actuate;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.EndpointWebExtension;

/** Over HTTP, a write to an unknown queue answers 404 (a bare endpoint would answer 204). */
@EndpointWebExtension(endpoint = DelayQueuesEndpoint.class)
public class DelayQueuesWebEndpointExtension {

    private final DelayQueuesEndpoint endpoint;

    public DelayQueuesWebEndpointExtension(DelayQueuesEndpoint endpoint) {
        this.endpoint = endpoint;
    }

    @WriteOperation
    public WebEndpointResponse<DelayQueuesEndpoint.ActionResult> act(@Selector String queue, @Selector String action,
            @Nullable String id, @Nullable Boolean all, @Nullable String limit) {
        DelayQueuesEndpoint.ActionResult result = endpoint.act(queue, action, id, all, limit);
        return result == null ? new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND) : new WebEndpointResponse<>(result);
    }
}
