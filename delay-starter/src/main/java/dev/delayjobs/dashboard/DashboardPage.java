package dev.delayjobs.dashboard;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import org.springframework.core.io.ClassPathResource;
import org.springframework.http.CacheControl;
import org.springframework.http.MediaType;
import org.springframework.web.util.HtmlUtils;

import dev.delayjobs.actuate.DelayQueuesEndpointLocation;

/**
 * The dashboard: one HTML page, its script and its style sheet, all from the jar, served by
 * {@link ServletDashboardRoutes} (Spring MVC) or {@link ReactiveDashboardRoutes} (WebFlux). The page
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

    /** Where the page is served, such as {@code /delay-jobs}: {@code path} redirects to {@code path/}. */
    public String path() {
        return path;
    }

    /** The page, for an application served under {@code contextPath} ({@code ""} for none). */
    String html(String contextPath) {
        String location = endpoint.path();
        return PAGE
                .replace("{{endpoint}}", location == null ? "" : attribute(contextPath + location))
                .replace("{{writable}}", Boolean.toString(endpoint.writesAllowed()))
                .replace("{{refreshMillis}}", Long.toString(refreshInterval.toMillis()));
    }

    /** The served files by their name below {@code path/}: the page's script and style sheet. */
    enum Asset {
        SCRIPT("dashboard.js", "text/javascript", DashboardPage.SCRIPT),
        STYLE("dashboard.css", "text/css", DashboardPage.STYLE);

        final String file;
        final MediaType type;
        final String body;

        Asset(String file, String type, String body) {
            this.file = file;
            this.type = new MediaType(MediaType.parseMediaType(type), StandardCharsets.UTF_8);
            this.body = body;
        }
    }

    static final MediaType HTML = new MediaType(MediaType.TEXT_HTML, StandardCharsets.UTF_8);

    /** The page is built for each request (the endpoint's access may change); the assets are revalidated. */
    static final CacheControl PAGE_CACHE = CacheControl.noStore();
    static final CacheControl ASSET_CACHE = CacheControl.noCache();

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
