package dev.delayjobs.actuate;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.web.filter.OncePerRequestFilter;

import tools.jackson.databind.json.JsonMapper;

/**
 * Answers the POSTs to the {@code delayqueues} endpoint that actuator would answer unhelpfully:
 * a write while the endpoint is read-only (actuator: 404 "No static resource") gets a 405 that
 * names the access property, and one without {@code Content-Type} or body (actuator: 415, or an
 * action on every dead job) gets a 400 that says what to send. Everything else passes through.
 */
public final class DelayQueuesWriteRequestFilter extends OncePerRequestFilter {

    static final String WHAT_TO_SEND = QueueAction.bodies();

    private static final JsonMapper JSON = new JsonMapper();

    private final DelayQueuesEndpointLocation endpoint;

    public DelayQueuesWriteRequestFilter(DelayQueuesEndpointLocation endpoint) {
        this.endpoint = endpoint;
    }

    @Override
    protected boolean shouldNotFilter(HttpServletRequest request) {
        if (!"POST".equals(request.getMethod())) {
            return true;
        }
        String root = endpoint.path();
        String path = request.getRequestURI().substring(request.getContextPath().length());
        return root == null || !path.startsWith(root + "/");
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        if (!endpoint.writesAllowed()) {
            response.setHeader("Allow", "GET");
            problem(request, response, HttpServletResponse.SC_METHOD_NOT_ALLOWED, "Method Not Allowed",
                    "Writes to the delayqueues endpoint are not allowed: its access is read-only, the default. Set "
                            + "management.endpoint.delayqueues.access=unrestricted to allow " + QueueAction.names("and")
                            + " (and secure the endpoint).");
            return;
        }
        if (request.getContentType() == null || request.getContentLengthLong() == 0) {
            problem(request, response, HttpServletResponse.SC_BAD_REQUEST, "Bad Request",
                    (request.getContentType() == null ? "No Content-Type. " : "No body. ") + WHAT_TO_SEND + ".");
            return;
        }
        chain.doFilter(request, response);
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
