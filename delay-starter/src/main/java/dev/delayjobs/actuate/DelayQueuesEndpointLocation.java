package dev.delayjobs.actuate;

import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.boot.actuate.endpoint.OperationType;
import org.springframework.boot.actuate.endpoint.web.ExposableWebEndpoint;
import org.springframework.boot.actuate.endpoint.web.PathMappedEndpoint;
import org.springframework.boot.actuate.endpoint.web.PathMappedEndpoints;

/**
 * Where the {@code delayqueues} endpoint is served over HTTP, and whether it takes writes, as
 * actuator mapped it (exposure, base path and access are the application's settings).
 */
public final class DelayQueuesEndpointLocation {

    private static final EndpointId ENDPOINT = EndpointId.of("delayqueues");

    private final ObjectProvider<PathMappedEndpoints> endpoints;

    public DelayQueuesEndpointLocation(ObjectProvider<PathMappedEndpoints> endpoints) {
        this.endpoints = endpoints;
    }

    /** The endpoint's path below the servlet context, such as {@code /actuator/delayqueues}; null when not exposed over HTTP. */
    public @Nullable String path() {
        PathMappedEndpoints mapped = endpoints.getIfAvailable();
        return mapped == null ? null : mapped.getPath(ENDPOINT);
    }

    /** Whether the endpoint's write operations are mapped: its access is unrestricted. */
    public boolean writesAllowed() {
        PathMappedEndpoints mapped = endpoints.getIfAvailable();
        PathMappedEndpoint endpoint = mapped == null ? null : mapped.getEndpoint(ENDPOINT);
        return endpoint instanceof ExposableWebEndpoint web
                && web.getOperations().stream().anyMatch(operation -> operation.getType() == OperationType.WRITE);
    }
}
