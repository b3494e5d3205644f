package dev.delayjobs.actuate;

import java.nio.charset.StandardCharsets;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Mono;

/**
 * The WebFlux counterpart of {@link DelayQueuesWriteRequestFilter}: the same 405 for a write while
 * the {@code delayqueues} endpoint is read-only and 400 for a write without {@code Content-Type}
 * or body, decided by the same check; everything else passes through.
 */
public final class ReactiveDelayQueuesWriteRequestFilter implements WebFilter {

    private final WriteRequestCheck check;

    public ReactiveDelayQueuesWriteRequestFilter(DelayQueuesEndpointLocation endpoint) {
        this.check = new WriteRequestCheck(endpoint);
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
        ServerHttpRequest request = exchange.getRequest();
        if (!check.applies(request.getMethod().name(), request.getPath().pathWithinApplication().value())) {
            return chain.filter(exchange);
        }
        MediaType contentType = request.getHeaders().getContentType();
        WriteRequestCheck.Problem problem = check.answer(contentType == null ? null : contentType.toString(),
                request.getHeaders().getContentLength());
        if (problem == null) {
            return chain.filter(exchange);
        }
        ServerHttpResponse response = exchange.getResponse();
        response.setStatusCode(HttpStatus.valueOf(problem.status()));
        if (problem.allow() != null) {
            response.getHeaders().set("Allow", problem.allow());
        }
        response.getHeaders().setContentType(MediaType.parseMediaType(WriteRequestCheck.Problem.CONTENT_TYPE));
        DataBuffer body = response.bufferFactory().wrap(problem.json(request.getPath().value()).getBytes(StandardCharsets.UTF_8));
        return response.writeWith(Mono.just(body));
    }
}
