package dev.delayjobs.actuate;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.boot.actuate.endpoint.OperationType;
import org.springframework.boot.actuate.endpoint.web.ExposableWebEndpoint;
import org.springframework.boot.actuate.endpoint.web.PathMappedEndpoint;
import org.springframework.boot.actuate.endpoint.web.PathMappedEndpoints;
import org.springframework.web.filter.OncePerRequestFilter;

import tools.jackson.databind.json.JsonMapper;

/**
 * Answers the POSTs to the {@code delayqueues} endpoint that actuator would answer unhelpfully:
 * a write while the endpoint is read-only (actuator: 404 "No static resource") gets a 405 that
 * names the access property, and one without {@code Content-Type} or body (actuator: 415, or an
 * action on every dead job) gets a 400 that says what to send. Everything else passes through.
 */
public final class DelayQueuesWriteRequestFilter extends OncePerRequestFilter {

    static final String WHAT_TO_SEND = "Send Content-Type: application/json with a body: {\"id\": \"<job id>\"} "
            + "for one job, {\"all\": true} to requeue-dead or delete-dead every dead job of the queue, {} to pause or "
            + "resume, {\"limit\": \"50/1s\"} (or \"none\") for rate-limit";

    private static final EndpointId ENDPOINT = EndpointId.of("delayqueues");
    private static final JsonMapper JSON = new JsonMapper();

    private final ObjectProvider<PathMappedEndpoints> endpoints;

    public DelayQueuesWriteRequestFilter(ObjectProvider<PathMappedEndpoints> endpoints) {
        this.endpoints = endpoints;
    }

    @Override
    protected boolean shouldNotFilter(HttpServletRequest request) {
        if (!"POST".equals(request.getMethod())) {
            return true;
        }
        String root = rootPath();
        String path = request.getRequestURI().substring(request.getContextPath().length());
        return root == null || !path.startsWith(root + "/");
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        if (!writesAllowed()) {
            response.setHeader("Allow", "GET");
            problem(request, response, HttpServletResponse.SC_METHOD_NOT_ALLOWED, "Method Not Allowed",
                    "Writes to the delayqueues endpoint are not allowed: its access is read-only, the default. Set "
                            + "management.endpoint.delayqueues.access=unrestricted to allow requeue-dead, delete-dead, cancel, "
                            + "pause, resume and rate-limit (and secure the endpoint).");
            return;
        }
        if (request.getContentType() == null || request.getContentLengthLong() == 0) {
            problem(request, response, HttpServletResponse.SC_BAD_REQUEST, "Bad Request",
                    (request.getContentType() == null ? "No Content-Type. " : "No body. ") + WHAT_TO_SEND + ".");
            return;
        }
        chain.doFilter(request, response);
    }

    private String rootPath() {
        PathMappedEndpoints mapped = endpoints.getIfAvailable();
        return mapped == null ? null : mapped.getPath(ENDPOINT);
    }

    private boolean writesAllowed() {
        PathMappedEndpoints mapped = endpoints.getIfAvailable();
        PathMappedEndpoint endpoint = mapped == null ? null : mapped.getEndpoint(ENDPOINT);
        return endpoint instanceof ExposableWebEndpoint web
                && web.getOperations().stream().anyMatch(operation -> operation.getType() == OperationType.WRITE);
    }

    private static void problem(HttpServletRequest request, HttpServletResponse response, int status, String title,
            String detail) throws IOException {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("title", title);
        body.put("status", status);
        body.put("detail", detail);
        body.put("instance", request.getRequestURI());
        response.setStatus(status);
        response.setContentType("application/problem+json");
        response.setCharacterEncoding("UTF-8");
        response.getWriter().write(JSON.writeValueAsString(body));
    }
}
