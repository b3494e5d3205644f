package dev.delayjobs.actuate;

import java.io.IOException;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Answers the POSTs to the {@code delayqueues} endpoint that actuator would answer unhelpfully:
 * a write while the endpoint is read-only (actuator: 404 "No static resource") gets a 405 that
 * names the access property, and one without {@code Content-Type} or body (actuator: 415, or an
 * action on every dead job) gets a 400 that says what to send. Everything else passes through.
 * {@link ReactiveDelayQueuesWriteRequestFilter} answers the same on WebFlux.
 */
public final class DelayQueuesWriteRequestFilter extends OncePerRequestFilter {

    private final WriteRequestCheck check;

    public DelayQueuesWriteRequestFilter(DelayQueuesEndpointLocation endpoint) {
        this.check = new WriteRequestCheck(endpoint);
    }

    @Override
    protected boolean shouldNotFilter(HttpServletRequest request) {
        return !check.applies(request.getMethod(), request.getRequestURI().substring(request.getContextPath().length()));
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        WriteRequestCheck.Problem problem = check.answer(request.getContentType(), request.getContentLengthLong());
        if (problem == null) {
            chain.doFilter(request, response);
            return;
        }
        if (problem.allow() != null) {
            response.setHeader("Allow", problem.allow());
        }
        response.setStatus(problem.status());
        response.setContentType(WriteRequestCheck.Problem.CONTENT_TYPE);
        response.setCharacterEncoding("UTF-8");
        response.getWriter().write(problem.json(request.getRequestURI()));
    }
}
