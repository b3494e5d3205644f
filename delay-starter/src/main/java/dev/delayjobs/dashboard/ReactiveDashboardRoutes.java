package dev.delayjobs.dashboard;

import java.net.URI;

import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerResponse;

/** The dashboard's routes in a WebFlux application: the same page and files as {@link ServletDashboardRoutes}. */
public final class ReactiveDashboardRoutes {

    private ReactiveDashboardRoutes() {
    }

    /** {@code path} (redirected to {@code path/}), {@code path/}, {@code path/dashboard.js}, {@code path/dashboard.css}. */
    public static RouterFunction<ServerResponse> of(DashboardPage page) {
        String path = page.path();
        RouterFunctions.Builder routes = RouterFunctions.route()
                .GET(path, request -> ServerResponse.temporaryRedirect(
                        URI.create(request.requestPath().contextPath().value() + path + "/")).build())
                .GET(path + "/", request -> ServerResponse.ok().contentType(DashboardPage.HTML)
                        .cacheControl(DashboardPage.PAGE_CACHE).bodyValue(page.html(request.requestPath().contextPath().value())));
        for (DashboardPage.Asset asset : DashboardPage.Asset.values()) {
            routes.GET(path + "/" + asset.file, request -> ServerResponse.ok().contentType(asset.type)
                    .cacheControl(DashboardPage.ASSET_CACHE).bodyValue(asset.body));
        }
        return routes.build();
    }
}
