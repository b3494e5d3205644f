package dev.delayjobs.dashboard;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import org.springframework.core.io.ClassPathResource;
import org.springframework.http.CacheControl;
import org.springframework.http.MediaType;
import org.springframework.web.servlet.function.RouterFunction;
import org.springframework.web.servlet.function.RouterFunctions;
import org.springframework.web.servlet.function.ServerRequest;
import org.springframework.web.servlet.function.ServerResponse;
import org.springframework.web.util.HtmlUtils;

import dev.delayjobs.actuate.DelayQueuesEndpointLocation;

/**
 * Serves the dashboard: one HTML page, its script and its style sheet, all from the jar. The page
 * is told where the {@code delayqueues} endpoint is and whether it takes writes; everything it
 * shows and does goes through that endpoint.
 */
public final class DashboardPage {

    private static final String PAGE = read("index.html");
    private static final String SCRIPT = read("dashboard.js");
    private static final String STYLE = read("dashboard.css");

    private final String path;
    private final DelayQueuesEndpointLocation endpoint;
    private final Duration refreshInterval;

    /**
     * @param path where the page is served, such as {@code /delay-jobs}
     * @param refreshInterval how often the page reads the endpoint again
     */
    public DashboardPage(String path, DelayQueuesEndpointLocation endpoint, Duration refreshInterval) {
        this.path = path;
        this.endpoint = endpoint;
        this.refreshInterval = refreshInterval;
    }

    /** {@code path} (redirected to {@code path/}), {@code path/}, {@code path/dashboard.js}, {@code path/dashboard.css}. */
    public RouterFunction<ServerResponse> routes() {
        return RouterFunctions.route()
                .GET(path, request -> ServerResponse.temporaryRedirect(
                        URI.create(request.requestPath().contextPath().value() + path + "/")).build())
                .GET(path + "/", this::page)
                .GET(path + "/dashboard.js", request -> asset(SCRIPT, "text/javascript"))
                .GET(path + "/dashboard.css", request -> asset(STYLE, "text/css"))
                .build();
    }

    private ServerResponse page(ServerRequest request) {
        String location = endpoint.path();
        String html = PAGE
                .replace("{{endpoint}}", location == null ? "" : attribute(request.requestPath().contextPath().value() + location))
                .replace("{{writable}}", Boolean.toString(endpoint.writesAllowed()))
                .replace("{{refreshMillis}}", Long.toString(refreshInterval.toMillis()));
        return ServerResponse.ok().contentType(new MediaType(MediaType.TEXT_HTML, StandardCharsets.UTF_8))
                .cacheControl(CacheControl.noStore()).body(html);
    }

    private static ServerResponse asset(String body, String type) {
        return ServerResponse.ok().contentType(new MediaType(MediaType.parseMediaType(type), StandardCharsets.UTF_8))
                .cacheControl(CacheControl.noCache()).body(body);
    }

    private static String attribute(String value) {
        return HtmlUtils.htmlEscape(value, StandardCharsets.UTF_8.name());
    }

    private static String read(String file) {
        try {
            return new ClassPathResource(file, DashboardPage.class).getContentAsString(StandardCharsets.UTF_8);
        }
        catch (IOException ex) {
            throw new UncheckedIOException("dashboard file " + file + " cannot be read from the classpath", ex);
        }
    }
}
